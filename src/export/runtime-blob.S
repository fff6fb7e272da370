/* The kselftests' runtime (src/export/kselftest/), linked into nprocguard as plain bytes. */
	.section .rodata
	.balign 16
	.global npg_kst_runtime_c_start
	.global npg_kst_runtime_c_end
	.global npg_kst_runtime_h_start
	.global npg_kst_runtime_h_end
npg_kst_runtime_c_start:
	.incbin NPG_KST_RUNTIME_C
npg_kst_runtime_c_end:
npg_kst_runtime_h_start:
	.incbin NPG_KST_RUNTIME_H
npg_kst_runtime_h_end:
	.section .note.GNU-stack, "", @progbits
