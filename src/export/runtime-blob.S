/*
 * The kselftests' runtime, linked into nprocguard as plain bytes: every
 * file of src/export/kselftest/, each with its name, in the table
 * npg_kst_runtime[] (struct npg_kst_runtime_file of kselftest.c: name,
 * start, end), which ends with a NULL name. The Makefile passes the
 * names, as quoted strings separated by commas, in NPG_KST_FILES, and
 * the directory with -Wa,-I: .incbin looks there.
 */
	.section .data.rel.ro, "aw"
	.balign 16
	.global npg_kst_runtime
npg_kst_runtime:
	.irp file, NPG_KST_FILES
	.section .rodata
1:	.asciz "\file"
2:	.incbin "\file"
3:
	.section .data.rel.ro, "aw"
	.dc.a 1b, 2b, 3b
	.endr
	.dc.a 0, 0, 0
	.section .note.GNU-stack, "", @progbits
