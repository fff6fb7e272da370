/* The guest's static /init (src/guest/init/init.c), linked into nprocguard as plain bytes. */
	.section .rodata
	.balign 16
	.global npg_guest_init_start
	.global npg_guest_init_end
npg_guest_init_start:
	.incbin NPG_GUEST_INIT
npg_guest_init_end:
	.section .note.GNU-stack, "", @progbits
