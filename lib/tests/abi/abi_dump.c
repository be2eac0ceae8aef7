// SPDX-License-Identifier: MIT
/*
 * Print every ABI fact of abi_list.h and every entry point of the table,
 * one "kind name value..." line each, as seen through whichever <cuda.h>
 * the include path finds.  abi_check.sh builds it against the toolkit and
 * against libcumc and diffs the output.
 */
#include <stddef.h>
#include <stdio.h>
#include <cuda.h>

#define ABI_STRINGIFY(x) #x
#define ABI_EXPANDED_STRING(x) ABI_STRINGIFY(x)

#define ABI_PRINT_VALUE(kind, name) \
	printf(kind " %s %lld\n", #name, (long long)(name));

#define ABI_VALUE(name)		ABI_PRINT_VALUE("value", name)
#define ABI_RESULT(name)	ABI_PRINT_VALUE("result", name)
#define ABI_DEVATTR(name)	ABI_PRINT_VALUE("devattr", name)

/* (type)-1 > 0 tells an unsigned type from a signed one, enums included. */
#define ABI_TYPE(type)							\
	printf("type %s size %zu align %zu unsigned %d\n", #type,	\
	       sizeof(type), _Alignof(type), (type)-1 > (type)0);

#define ABI_STRUCT(type)						\
	printf("struct %s size %zu align %zu\n", #type, sizeof(type),	\
	       _Alignof(type));

#define ABI_MEMBER(type, member)					\
	printf("member %s.%s offset %zu size %zu\n", #type, #member,	\
	       offsetof(type, member), sizeof(((type *)0)->member));

/*
 * Each entry point of the table (entry_points.h, which abi_check.sh makes
 * with scripts/entry-table): the name as written, then the symbol it links
 * to after the header's macros.
 */
#define CUMC_HEADER(symbol, name)					\
	printf("func %s %s\n", #name, ABI_EXPANDED_STRING(name));

int main(void)
{
#include "abi_list.h"
#include "entry_points.h"
	return 0;
}
