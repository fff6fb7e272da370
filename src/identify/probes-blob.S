/*
 * identify's probes, linked into nprocguard as plain bytes: every file of
 * scenarios/identify/, each with its name, in the table
 * npg_identify_probe_files[] (name, start, end), which ends with a NULL
 * name. The Makefile passes the names, as quoted strings separated by
 * commas, in NPG_PROBE_FILES (none before the first `make identify-probes`),
 * and the directory with -Wa,-I: .incbin looks there.
 */
	.section .data.rel.ro, "aw"
	.balign 16
	.global npg_identify_probe_files
npg_identify_probe_files:
	.irp file, NPG_PROBE_FILES
	.ifnb \file
	.section .rodata
1:	.asciz "\file"
2:	.incbin "\file"
3:
	.section .data.rel.ro, "aw"
	.dc.a 1b, 2b, 3b
	.endif
	.endr
	.dc.a 0, 0, 0
	.section .note.GNU-stack, "", @progbits
