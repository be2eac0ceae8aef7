// SPDX-License-Identifier: MIT
/*
 * A shared library shaped as nvcc -rdc leaves one, for test_ptx: two
 * objects' fatbins in __nv_relfatbin, each with compute_90 PTX (one of
 * them an LZ4 block, as nvcc 12 compressed them), and the image nvlink
 * made of them, machine code only, which a runtime would load.  The
 * first object defines add_one(), the second a kernel calling it.
 *
 * The layouts are image.c's (a 16-byte fatbin header, a 64-byte entry
 * header); the LZ4 block is one sequence of literals: a token 0xf0 and one
 * byte more of length, which holds for texts of 15 to 269 bytes.
 */
#include <stdint.h>

#define FUNC_PTX \
	".version 8.4\n.target sm_90\n.address_size 64\n" \
	".visible .func (.param .b32 r) add_one(.param .b32 a)\n{\n" \
	".reg .b32 %r<2>;\nld.param.b32 %r1, [a];\nadd.s32 %r1, %r1, 1;\n" \
	"st.param.b32 [r], %r1;\nret;\n}\n"

#define KERNEL_PTX \
	".version 8.4\n.target sm_90\n.address_size 64\n" \
	".extern .func (.param .b32 r) add_one(.param .b32 a);\n" \
	".visible .entry bump(.param .u64 p)\n{\n" \
	".reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n" \
	"ld.param.u64 %rd1, [p];\nld.u32 %r1, [%rd1];\n" \
	"{\n.param .b32 a;\n.param .b32 r;\nst.param.b32 [a], %r1;\n" \
	"call (r), add_one, (a);\nld.param.b32 %r2, [r];\n}\n" \
	"st.u32 [%rd1], %r2;\nret;\n}\n"

#define FUNC_LEN	(sizeof(FUNC_PTX) - 1)
#define PAD8(n)		(((n) + 7) / 8 * 8)

_Static_assert(FUNC_LEN >= 15 && FUNC_LEN - 15 < 255,
	       "one byte of literal length");

struct header {
	uint32_t magic;
	uint16_t version;
	uint16_t header_size;
	uint64_t size;
};

struct entry {
	uint16_t kind;
	uint16_t version;
	uint32_t header_size;
	uint64_t size;
	uint32_t compressed_size;
	uint32_t unknown0;
	uint32_t ptx_version;
	uint32_t arch;
	uint64_t unknown1;
	uint64_t flags;
	uint64_t unknown2;
	uint64_t uncompressed_size;
};

#define HEADER(payload) \
	{ 0xba55ed50, 1, sizeof(struct header), sizeof(struct entry) + (payload) }

static const struct {
	struct header h;
	struct entry e;
	unsigned char token, length;
	char text[PAD8(FUNC_LEN + 2) - 2];
} func_object __attribute__((used, section("__nv_relfatbin"), aligned(8))) = {
	HEADER(PAD8(FUNC_LEN + 2)),
	{ 1, 0x101, sizeof(struct entry), PAD8(FUNC_LEN + 2), FUNC_LEN + 2,
	  0, 0x804, 90, 0, 0x2000, 0, FUNC_LEN },
	0xf0, FUNC_LEN - 15, FUNC_PTX,
};

static const struct {
	struct header h;
	struct entry e;
	char text[PAD8(sizeof(KERNEL_PTX))];
} kernel_object __attribute__((used, section("__nv_relfatbin"), aligned(8))) = {
	HEADER(PAD8(sizeof(KERNEL_PTX))),
	{ 1, 0x101, sizeof(struct entry), PAD8(sizeof(KERNEL_PTX)), 0,
	  0, 0x804, 90, 0, 0, 0, 0 },
	KERNEL_PTX,
};

/* The linked image: an sm_90 ELF entry (kind 2), of which cumc runs none. */
const struct {
	struct header h;
	struct entry e;
	unsigned char elf[8];
} relfatbin_linked_image = {
	HEADER(8),
	{ 2, 0x101, sizeof(struct entry), 8, 0, 0, 0, 90, 0, 0, 0, 0 },
	{ 0x7f, 'E', 'L', 'F', 2, 1, 1, 0 },
};
