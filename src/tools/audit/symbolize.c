/* An address in another process, as binary+offset and the nearest ELF symbol. */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/audit/audit.h"

/* The mapping of /proc/PID/maps holding @ip: file path and file offset */
static int find_mapping(pid_t pid, uint64_t ip, char *path, size_t len, uint64_t *off)
{
	char maps[64], line[4352];
	FILE *f;
	int found = -1;

	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	f = fopen(maps, "re");
	if (!f)
		return -1;
	while (found < 0 && fgets(line, sizeof(line), f)) {
		uint64_t lo, hi, fileoff;
		int consumed = 0;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64 " %*s %*s %n", &lo, &hi,
			   &fileoff, &consumed) < 3 || ip < lo || ip >= hi)
			continue;
		snprintf(path, len, "%s", consumed ? line + consumed : "");
		path[strcspn(path, "\n")] = '\0';
		*off = ip - lo + fileoff;
		found = 0;
	}
	fclose(f);
	return found;
}

/* The symbol of an ELF file covering file offset @off (through its PT_LOAD segments) */
static int elf_symbol(const char *path, uint64_t off, char *name, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1;
	struct stat st;
	const unsigned char *m;
	const Elf64_Ehdr *eh;
	uint64_t vaddr = 0;
	bool have_vaddr = false;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return -1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	eh = (const Elf64_Ehdr *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > (uint64_t)st.st_size ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size)
		goto out;
	for (int i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(m + eh->e_phoff) + i;

		if (ph->p_type == PT_LOAD && off >= ph->p_offset && off < ph->p_offset + ph->p_filesz) {
			vaddr = off - ph->p_offset + ph->p_vaddr;
			have_vaddr = true;
			break;
		}
	}
	if (!have_vaddr)
		goto out;
	/* .symtab if the binary kept it, else .dynsym */
	for (int pass = 0; pass < 2 && rc < 0; pass++) {
		for (int i = 0; i < eh->e_shnum && rc < 0; i++) {
			const Elf64_Shdr *sh = (const Elf64_Shdr *)(m + eh->e_shoff) + i;
			const Elf64_Shdr *strsh;
			const Elf64_Sym *best = NULL;

			if (sh->sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM) ||
			    sh->sh_link >= eh->e_shnum || sh->sh_entsize != sizeof(Elf64_Sym) ||
			    sh->sh_offset + sh->sh_size > (uint64_t)st.st_size)
				continue;
			strsh = (const Elf64_Shdr *)(m + eh->e_shoff) + sh->sh_link;
			if (strsh->sh_offset + strsh->sh_size > (uint64_t)st.st_size)
				continue;
			for (uint64_t k = 0; k < sh->sh_size / sizeof(Elf64_Sym); k++) {
				const Elf64_Sym *s = (const Elf64_Sym *)(m + sh->sh_offset) + k;

				if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_value > vaddr ||
				    vaddr >= s->st_value + (s->st_size ? s->st_size : 1) ||
				    s->st_name >= strsh->sh_size)
					continue;
				best = s;
				break;
			}
			if (best) {
				snprintf(name, len, "%s", (const char *)m + strsh->sh_offset + best->st_name);
				rc = 0;
			}
		}
	}
out:
	munmap((void *)m, (size_t)st.st_size);
	return rc;
}

void npg_symbolize(pid_t pid, uint64_t ip, char *buf, size_t len)
{
	char path[4096], sym[256];
	uint64_t off = 0;
	const char *base;

	if (find_mapping(pid, ip, path, sizeof(path), &off) < 0 || !path[0]) {
		snprintf(buf, len, "%#" PRIx64, ip);
		return;
	}
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (elf_symbol(path, off, sym, sizeof(sym)) == 0)
		snprintf(buf, len, "%s+%#" PRIx64 " (%s)", base, off, sym);
	else
		snprintf(buf, len, "%s+%#" PRIx64, base, off);
}
