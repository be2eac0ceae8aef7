// SPDX-License-Identifier: MIT
/*
 * Relocatable device code.  A program or library built with -rdc carries
 * its device code twice: the fatbin of each object, kept for linking, in
 * its __nv_relfatbin section, and the image nvlink made of them all, which
 * the CUDA runtime registers and loads.  nvlink links machine code only,
 * so the linked image has no PTX even where every object had some: NCCL
 * 2.21 (PyPI's nvidia-nccl-cu12) has compute_90 PTX in each of its 112
 * objects and none in the image its runtime loads.  cumc runs PTX only,
 * so for such an image it links the objects' PTX instead, as cuLink*
 * would have linked them: the same device code, from the same sources.
 *
 * The section is found through the object's section headers, read from
 * its file (they are not loaded); its contents are read where the loader
 * mapped them, since the section is allocated.  The file is the one the
 * process mapped; one replaced on disk since then is not noticed.
 */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "image.h"
#include "jit.h"

#define RELFATBIN_SECTION	"__nv_relfatbin"

/* The loaded object an address lies in: its file and load bias. */
struct object {
	uintptr_t addr;
	const char *path;
	uintptr_t bias;
};

static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct object *o = arg;
	int i;

	(void)size;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t start = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type == PT_LOAD && o->addr >= start &&
		    o->addr - start < ph->p_memsz) {
			/* The program itself has no name here. */
			o->path = info->dlpi_name[0] ? info->dlpi_name :
						       "/proc/self/exe";
			o->bias = info->dlpi_addr;
			return 1;
		}
	}
	return 0;
}

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

/* The address and size of @path's allocated section @name; false: none. */
static bool loaded_section(const struct object *o, const char *name,
			   uintptr_t *addr, size_t *size)
{
	ElfW(Ehdr) eh;
	ElfW(Shdr) *sh = NULL, names;
	char *strtab = NULL;
	bool found = false;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	unsigned int i;

	if (fd < 0)
		return false;
	if (!read_at(fd, &eh, sizeof(eh), 0) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(*sh) || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || !read_at(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff))
		goto out;
	names = sh[eh.e_shstrndx];
	strtab = malloc(names.sh_size + 1);
	if (!strtab || !read_at(fd, strtab, names.sh_size, names.sh_offset))
		goto out;
	strtab[names.sh_size] = '\0';
	for (i = 0; i < eh.e_shnum && !found; i++)
		if (sh[i].sh_name < names.sh_size &&
		    !strcmp(strtab + sh[i].sh_name, name) &&
		    (sh[i].sh_flags & SHF_ALLOC)) {
			*addr = o->bias + sh[i].sh_addr;
			*size = sh[i].sh_size;
			found = true;
		}
out:
	free(strtab);
	free(sh);
	close(fd);
	return found;
}

struct texts {
	char **text;
	size_t *len;
	unsigned int count;
	unsigned int cap;
};

static void texts_free(struct texts *t)
{
	while (t->count)
		free(t->text[--t->count]);
	free(t->text);
	free(t->len);
}

static enum cumc_ptx_status texts_add(struct texts *t, char *text,
				      size_t len)
{
	if (t->count == t->cap) {
		unsigned int cap = t->cap ? t->cap * 2 : 64;
		char **nt = realloc(t->text, cap * sizeof(*nt));
		size_t *nl;

		if (!nt)
			return CUMC_PTX_ENOMEM;
		t->text = nt;
		nl = realloc(t->len, cap * sizeof(*nl));
		if (!nl)
			return CUMC_PTX_ENOMEM;
		t->len = nl;
		t->cap = cap;
	}
	t->text[t->count] = text;
	t->len[t->count++] = len;
	return CUMC_PTX_OK;
}

/*
 * Each fatbin of the section (8-byte aligned, one after the other): its
 * PTX for @max_arch.  Every one must have some, or the link would lack
 * what that object defines.
 */
static enum cumc_ptx_status section_texts(const unsigned char *sec,
					  size_t size, unsigned int max_arch,
					  struct texts *t)
{
	enum cumc_ptx_status st;
	size_t at = 0, n, len;
	char *text;

	while (at < size && size - at >= 16) {
		n = ptx_fatbin_size(sec + at);
		if (!n) {
			at += 8;
			continue;
		}
		if (n > size - at)
			return CUMC_PTX_EIMAGE;
		st = ptx_fatbin_ptx(sec + at, n, max_arch, &text, &len, NULL, 0);
		if (st != CUMC_PTX_OK)
			return st;
		st = texts_add(t, text, len);
		if (st != CUMC_PTX_OK) {
			free(text);
			return st;
		}
		at = (at + n + 7) & ~(size_t)7;
	}
	return t->count ? CUMC_PTX_OK : CUMC_PTX_ENOPTX;
}

enum cumc_ptx_status ptx_relocatable_text(const void *fatbin,
					  unsigned int max_arch, char **text,
					  size_t *text_len)
{
	struct object o = { .addr = (uintptr_t)fatbin };
	struct texts t = { 0 };
	enum cumc_ptx_status st;
	uintptr_t sec;
	size_t size;

	if (!dl_iterate_phdr(find_object, &o) ||
	    !loaded_section(&o, RELFATBIN_SECTION, &sec, &size))
		return CUMC_PTX_ENOPTX;
	st = section_texts((const unsigned char *)sec, size, max_arch, &t);
	if (st == CUMC_PTX_OK)
		st = ptx_link_join(t.text, t.len, t.count, text, text_len);
	if (st == CUMC_PTX_OK)
		ptx_log("%s: machine code only in the image loaded; its %u relocatable objects' PTX linked instead",
			o.path, t.count);
	texts_free(&t);
	return st;
}
