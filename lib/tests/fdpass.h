/* SPDX-License-Identifier: MIT */
/*
 * Test helper: pass a file descriptor over a Unix socket (SCM_RIGHTS), as
 * collective libraries (NCCL's and PyTorch's proxies) pass exported memory
 * between ranks. The one copy for the library's tests (lib/tests/) and the
 * module's selftests (selftests/, which build with -Ilib/tests).
 */
#ifndef CUMC_TESTS_FDPASS_H
#define CUMC_TESTS_FDPASS_H

#include <string.h>
#include <sys/socket.h>

/* The one-byte message that carries a descriptor, and room for it. */
struct fdpass_msg {
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	char byte;
	struct iovec iov;
	struct msghdr msg;
};

static inline struct msghdr *fdpass_msg_init(struct fdpass_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->byte = 'f';
	m->iov.iov_base = &m->byte;
	m->iov.iov_len = 1;
	m->msg.msg_iov = &m->iov;
	m->msg.msg_iovlen = 1;
	m->msg.msg_control = m->control.buf;
	m->msg.msg_controllen = sizeof(m->control.buf);
	return &m->msg;
}

/* Send @fd with a one-byte message on @sock: 0, or -1. */
static inline int fdpass_send(int sock, int fd)
{
	struct fdpass_msg m;
	struct msghdr *msg = fdpass_msg_init(&m);
	struct cmsghdr *cmsg = CMSG_FIRSTHDR(msg);

	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	return sendmsg(sock, msg, 0) == 1 ? 0 : -1;
}

/*
 * The descriptor that came with the next message on @sock (close-on-exec),
 * or -1.
 */
static inline int fdpass_recv(int sock)
{
	struct fdpass_msg m;
	struct msghdr *msg = fdpass_msg_init(&m);
	struct cmsghdr *cmsg;
	int fd;

	if (recvmsg(sock, msg, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	cmsg = CMSG_FIRSTHDR(msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET ||
	    cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

#endif /* CUMC_TESTS_FDPASS_H */
