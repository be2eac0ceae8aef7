// SPDX-License-Identifier: MIT
/*
 * Built against cumc's nvml.h, prints each fact of nvml_abi_list.h as a C
 * _Static_assert; nvml_abi.sh compiles those against NVIDIA's nvml.h, so
 * that a value, size, offset or sign that differs fails at compile time.
 * The linked names the macros select are printed as plain lines, diffed
 * against the same program built on NVIDIA's header.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <nvml.h>

#define ABI_STRINGIFY(x) #x
#define ABI_EXPANDED_STRING(x) ABI_STRINGIFY(x)

static int names_only;

#define ABI_ASSERT(expr, value)						\
	if (!names_only)						\
		printf("_Static_assert(%s == %lldLL, \"%s\");\n", expr,	\
		       (long long)(value), expr);

#define ABI_VALUE(name)		ABI_ASSERT("(long long)(" #name ")", name)

/* (type)-1 > 0 tells an unsigned type from a signed one, enums included. */
#define ABI_TYPE(type)							\
	ABI_ASSERT("sizeof(" #type ")", sizeof(type))			\
	ABI_ASSERT("((" #type ")-1 > (" #type ")0)", (type)-1 > (type)0)

#define ABI_STRUCT(type)						\
	ABI_ASSERT("sizeof(" #type ")", sizeof(type))			\
	ABI_ASSERT("_Alignof(" #type ")", _Alignof(type))

#define ABI_MEMBER(type, member)					\
	ABI_ASSERT("offsetof(" #type ", " #member ")",			\
		   offsetof(type, member))				\
	ABI_ASSERT("sizeof(((" #type " *)0)->" #member ")",		\
		   sizeof(((type *)0)->member))

#define ABI_FUNC(name)							\
	if (names_only)							\
		printf("func %s %s\n", #name, ABI_EXPANDED_STRING(name));

int main(int argc, char **argv)
{
	names_only = argc > 1 && !strcmp(argv[1], "--names");
	if (!names_only)
		printf("#include <stddef.h>\n#include <nvml.h>\n");
#include "nvml_abi_list.h"
	return 0;
}
