// SPDX-License-Identifier: MIT
/*
 * The answer to the CUDA runtime's integrity check (Documentation/
 * runtime.md, table d4082055): the algorithm, its key and its two
 * constant answers are those ZLUDA published from the driver; the hash
 * they describe is HMAC-MD2.
 */
#include <string.h>

#include "integrity.h"
#include "md2.h"

_Static_assert(sizeof(struct libcumc_integrity_input) == 48,
	       "the check hashes 48 bytes of inputs");
_Static_assert(sizeof(struct libcumc_integrity_device) == 28,
	       "and 28 bytes of each device");

static const unsigned char libcumc_integrity_key[LIBCUMC_MD2_SIZE] = {
	0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
	0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f,
};

static const uint64_t libcumc_integrity_fixed[2][2] = {
	{ 0x3341181c03cb675cull, 0x8ed383aa1f4cd1e8ull },
	{ 0x1841181c03cb675cull, 0x8ed383aa1f4cd1e8ull },
};

void libcumc_integrity_answer(const struct libcumc_integrity_input *in,
			      const struct libcumc_integrity_device *devices,
			      unsigned int num_devices, uint64_t answer[2])
{
	unsigned char digest[LIBCUMC_MD2_SIZE];
	struct libcumc_hmac_md2 h;
	unsigned int kind = in->version % 10;

	if (kind < 2) {
		memcpy(answer, libcumc_integrity_fixed[kind],
		       sizeof(libcumc_integrity_fixed[kind]));
		return;
	}
	libcumc_hmac_md2_init(&h, libcumc_integrity_key);
	libcumc_hmac_md2_update(&h, in, sizeof(*in));
	libcumc_hmac_md2_update(&h, devices, num_devices * sizeof(*devices));
	libcumc_hmac_md2_final(&h, digest);
	memcpy(answer, digest, sizeof(digest));
}
