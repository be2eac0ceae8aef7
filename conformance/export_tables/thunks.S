/* SPDX-License-Identifier: MIT */
/*
 * interpose.c's thunks, x86-64: MAX_TABLES * MAX_SLOTS of them, 16 bytes
 * apart. Thunk N pushes N and goes to a common part that saves every
 * argument register, calls interpose_slot_called(N, saved registers) and
 * jumps to the slot it returns with the registers as the caller left them.
 */
	.text
	.globl	interpose_thunks
	.hidden	interpose_thunks
	.p2align 4
interpose_thunks:
	.set	n, 0
	.rept	16 * 64
	.p2align 4
	pushq	$n
	jmp	interpose_common
	.set	n, n + 1
	.endr

	.p2align 4
interpose_common:
	/* rsp: index, return address; 16-aligned here. */
	pushq	%rdi
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%r8
	pushq	%r9
	pushq	%rax
	subq	$136, %rsp
	movdqu	%xmm0, 0(%rsp)
	movdqu	%xmm1, 16(%rsp)
	movdqu	%xmm2, 32(%rsp)
	movdqu	%xmm3, 48(%rsp)
	movdqu	%xmm4, 64(%rsp)
	movdqu	%xmm5, 80(%rsp)
	movdqu	%xmm6, 96(%rsp)
	movdqu	%xmm7, 112(%rsp)
	movq	192(%rsp), %rdi
	leaq	136(%rsp), %rsi
	call	interpose_slot_called
	movq	%rax, %r11
	movdqu	0(%rsp), %xmm0
	movdqu	16(%rsp), %xmm1
	movdqu	32(%rsp), %xmm2
	movdqu	48(%rsp), %xmm3
	movdqu	64(%rsp), %xmm4
	movdqu	80(%rsp), %xmm5
	movdqu	96(%rsp), %xmm6
	movdqu	112(%rsp), %xmm7
	addq	$136, %rsp
	popq	%rax
	popq	%r9
	popq	%r8
	popq	%rcx
	popq	%rdx
	popq	%rsi
	popq	%rdi
	addq	$8, %rsp
	jmp	*%r11

	.section .note.GNU-stack,"",@progbits
