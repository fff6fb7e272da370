/*
 * Pins a BPF array map at PATH: the stand-in for an object someone else
 * planted where nprocguard's task iterator should be (tests/cli/status.t).
 * Raw bpf(2), so the audit programs' build rule needs no libbpf.
 */
#include <linux/bpf.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	union bpf_attr attr;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: plant-bpf-map PATH\n");
		return 2;
	}
	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	fd = (int)syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof(attr));
	if (fd < 0) {
		perror("plant-bpf-map: BPF_MAP_CREATE");
		return 1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uint64_t)(uintptr_t)argv[1];
	attr.bpf_fd = (uint32_t)fd;
	if (syscall(SYS_bpf, BPF_OBJ_PIN, &attr, sizeof(attr)) < 0) {
		perror(argv[1]);
		return 1;
	}
	return 0;
}
