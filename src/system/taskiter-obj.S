/* The compiled BPF task iterator, linked into nprocguard as plain bytes. */
	.section .rodata
	.balign 8
	.global npg_taskiter_obj_start
	.global npg_taskiter_obj_end
npg_taskiter_obj_start:
	.incbin NPG_TASKITER_OBJ
npg_taskiter_obj_end:
	.section .note.GNU-stack, "", @progbits
