// SPDX-License-Identifier: MIT
/*
 * Legacy interprocess memory and events: cuIpcGetMemHandle,
 * cuIpcOpenMemHandle and cuIpcCloseMemHandle, on top of the module's
 * POSIX file descriptors (share.c's CUMC_EXPORT_FD and CUMC_IMPORT_FD);
 * cuIpcGetEventHandle and cuIpcOpenEventHandle, on top of the memfd page
 * an interprocess event keeps its state in (event_shared.c).
 *
 * A CUipcMemHandle or CUipcEventHandle is 64 bytes a program copies
 * anywhere (a file, a pipe, an MPI message), while a descriptor travels
 * only over a Unix socket.  So the exporting process serves its
 * descriptors itself: the first cuIpcGet*Handle starts a thread
 * listening on an abstract Unix socket named after the process, and the
 * handle carries that name's pid, a random token drawn for the process
 * (without which the thread hands out nothing), and what it names: the
 * cuMemAlloc chunk (alloc.c) holding the allocation, or the event's id.
 * A request is the handle itself.  The opener asks that thread for the
 * chunk's descriptor, imports and maps it, and answers the allocation's
 * address inside the mapping; or for the event's page, which it maps
 * into an event of its own.
 *
 * A handle opens only while its exporting process lives and the
 * allocation or event it names was not freed (neither id is ever
 * reused); otherwise INVALID_HANDLE.  An opened event outlives both:
 * its page stays mapped until the opener destroys it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "alloc.h"
#include "entry.h"
#include "event_shared.h"
#include "log.h"
#include "memory.h"
#include "va.h"

#define CUMC_IPC_MAGIC 0x494d5543	/* "CUMI" */
#define CUMC_IPC_EVENT_MAGIC 0x454d5543	/* "CUME" */
#define CUMC_IPC_TOKEN 16

/* How every handle starts: what it is, and whose. */
struct libcumc_ipc_name {
	unsigned int magic;
	int pid;			/* the exporter's */
	unsigned char token[CUMC_IPC_TOKEN];
};

/* What a CUipcMemHandle holds; the rest of its 64 bytes is zero. */
struct libcumc_ipc_handle {
	struct libcumc_ipc_name name;	/* CUMC_IPC_MAGIC */
	unsigned long long buffer_id;	/* never reused */
	unsigned long long chunk_base;	/* the exporter's address */
	unsigned long long chunk_length;
	unsigned long long offset;	/* of the allocation in its chunk */
};

/* What a CUipcEventHandle holds; the rest of its 64 bytes is zero. */
struct libcumc_ipc_event_handle {
	struct libcumc_ipc_name name;	/* CUMC_IPC_EVENT_MAGIC */
	unsigned long long event_id;	/* never reused */
};

/* A request to the serving thread: one of the handles. */
union libcumc_ipc_request {
	struct libcumc_ipc_name name;
	struct libcumc_ipc_handle mem;
	struct libcumc_ipc_event_handle event;
};

_Static_assert(sizeof(struct libcumc_ipc_handle) <= sizeof(CUipcMemHandle),
	       "the IPC handle fits CUipcMemHandle");
_Static_assert(sizeof(struct libcumc_ipc_event_handle) <=
	       sizeof(CUipcEventHandle),
	       "the IPC event handle fits CUipcEventHandle");

/* The exporter's side: the serving thread and its socket. */
static pthread_mutex_t libcumc_ipc_server_lock = PTHREAD_MUTEX_INITIALIZER;
static int libcumc_ipc_server_fd = -1;
static unsigned char libcumc_ipc_token[CUMC_IPC_TOKEN];

/* The opener's side: what cuIpcOpenMemHandle mapped, counted. */
struct libcumc_ipc_open {
	int pid;
	unsigned long long buffer_id;
	CUdeviceptr map_base;
	size_t map_length;
	CUdeviceptr addr;		/* as answered */
	unsigned int refs;
};

static pthread_mutex_t libcumc_ipc_open_lock = PTHREAD_MUTEX_INITIALIZER;
static struct libcumc_ipc_open *libcumc_ipc_opens;
static size_t libcumc_ipc_num_opens;

static void libcumc_ipc_address(struct sockaddr_un *sun, socklen_t *len,
				int pid)
{
	int n;

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	/* Abstract: sun_path[0] stays NUL, nothing is in the filesystem. */
	n = snprintf(sun->sun_path + 1, sizeof(sun->sun_path) - 1,
		     "cumc-ipc-%d", pid);
	*len = offsetof(struct sockaddr_un, sun_path) + 1 + n;
}

/* Sends @fd (or, when it is negative, no descriptor) and @res. */
static void libcumc_ipc_reply(int conn, int fd, CUresult res)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct iovec iov = { .iov_base = &res, .iov_len = sizeof(res) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;

	if (fd >= 0) {
		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	sendmsg(conn, &msg, MSG_NOSIGNAL);
}

/*
 * The descriptor of the chunk a request names, if the allocation it
 * names is still there.
 */
static CUresult libcumc_ipc_export(const struct libcumc_ipc_handle *req,
				   int *fd)
{
	struct cumc_export_fd cmd = { .size = sizeof(cmd) };
	struct libcumc_alloc_info info;
	const struct libcumc_driver *drv;
	__u64 handle;
	CUresult res;

	if (!libcumc_alloc_lookup(req->chunk_base + req->offset, &info) ||
	    info.buffer_id != req->buffer_id || info.managed)
		return CUDA_ERROR_INVALID_HANDLE;
	res = libcumc_driver(&drv);
	if (res == CUDA_SUCCESS)
		res = libcumc_retain_mapped(drv, info.chunk_base, &handle);
	if (res != CUDA_SUCCESS)
		return CUDA_ERROR_INVALID_HANDLE;
	cmd.handle = handle;
	res = libcumc_ioctl(drv, CUMC_EXPORT_FD, &cmd, NULL);
	libcumc_release_handle(drv, handle);
	if (res == CUDA_SUCCESS)
		*fd = cmd.out_fd;
	return res;
}

/*
 * The descriptor a request of @len bytes asks for, if its token is this
 * process's: a chunk's, or an event's page.
 */
static CUresult libcumc_ipc_answer(const union libcumc_ipc_request *req,
				   ssize_t len, int *fd)
{
	if (len < (ssize_t)sizeof(req->name) ||
	    memcmp(req->name.token, libcumc_ipc_token, CUMC_IPC_TOKEN))
		return CUDA_ERROR_INVALID_HANDLE;
	if (req->name.magic == CUMC_IPC_MAGIC && len == sizeof(req->mem))
		return libcumc_ipc_export(&req->mem, fd);
	if (req->name.magic == CUMC_IPC_EVENT_MAGIC &&
	    len == sizeof(req->event)) {
		*fd = libcumc_event_shared_fd(req->event.event_id);
		return *fd >= 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
	}
	return CUDA_ERROR_INVALID_HANDLE;
}

static void *libcumc_ipc_serve(void *arg)
{
	int listener = (int)(intptr_t)arg, conn, fd;
	union libcumc_ipc_request req;
	CUresult res;

	for (;;) {
		conn = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		fd = -1;
		res = libcumc_ipc_answer(&req, recv(conn, &req, sizeof(req), 0),
					 &fd);
		libcumc_ipc_reply(conn, fd, res);
		if (fd >= 0)
			close(fd);
		close(conn);
	}
}

/* Starts this process's serving thread, once. */
static CUresult libcumc_ipc_server_start(void)
{
	struct sockaddr_un sun;
	pthread_attr_t attr;
	pthread_t thread;
	socklen_t len;
	CUresult res = CUDA_SUCCESS;
	int fd;

	pthread_mutex_lock(&libcumc_ipc_server_lock);
	if (libcumc_ipc_server_fd >= 0)
		goto out;
	if (getrandom(libcumc_ipc_token, sizeof(libcumc_ipc_token), 0) !=
	    sizeof(libcumc_ipc_token)) {
		res = CUDA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		libcumc_log_errno("socket", NULL, errno);
		res = CUDA_ERROR_OPERATING_SYSTEM;
		goto out;
	}
	libcumc_ipc_address(&sun, &len, getpid());
	if (bind(fd, (struct sockaddr *)&sun, len) || listen(fd, 16)) {
		libcumc_log_errno("bind", NULL, errno);
		res = CUDA_ERROR_OPERATING_SYSTEM;
		goto err_close;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&thread, &attr, libcumc_ipc_serve,
			   (void *)(intptr_t)fd)) {
		pthread_attr_destroy(&attr);
		res = CUDA_ERROR_OUT_OF_MEMORY;
		goto err_close;
	}
	pthread_attr_destroy(&attr);
	libcumc_ipc_server_fd = fd;
	goto out;
err_close:
	close(fd);
out:
	pthread_mutex_unlock(&libcumc_ipc_server_lock);
	return res;
}

/*
 * Any address inside a cuMemAlloc allocation names the allocation;
 * managed memory, pool memory and VMM memory have no legacy handle.
 */
/* @name of this process, of @magic, its serving thread started. */
static CUresult libcumc_ipc_name_self(struct libcumc_ipc_name *name,
				      unsigned int magic)
{
	CUresult res = libcumc_ipc_server_start();

	if (res != CUDA_SUCCESS)
		return res;
	name->magic = magic;
	name->pid = getpid();
	memcpy(name->token, libcumc_ipc_token, sizeof(name->token));
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
	struct libcumc_ipc_handle h = { .buffer_id = 0 };
	struct libcumc_alloc_info info;
	CUresult res;

	if (!pHandle)
		return CUDA_ERROR_INVALID_VALUE;
	if (!libcumc_alloc_lookup(dptr, &info) || info.managed)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_ipc_name_self(&h.name, CUMC_IPC_MAGIC);
	if (res != CUDA_SUCCESS)
		return res;
	h.buffer_id = info.buffer_id;
	h.chunk_base = info.chunk_base;
	h.chunk_length = info.chunk_length;
	h.offset = info.base - info.chunk_base;
	memset(pHandle, 0, sizeof(*pHandle));
	memcpy(pHandle, &h, sizeof(h));
	return CUDA_SUCCESS;
}

/*
 * Asks the exporter named by the handle @h (@len bytes) for the
 * descriptor it names.
 */
static CUresult libcumc_ipc_fetch(const struct libcumc_ipc_name *h, size_t len,
				  int *fd)
{
	union {
		struct cmsghdr hdr;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	CUresult res = CUDA_ERROR_INVALID_HANDLE;
	struct iovec iov = { .iov_base = &res, .iov_len = sizeof(res) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = control.buf,
		.msg_controllen = sizeof(control.buf),
	};
	struct sockaddr_un sun;
	struct cmsghdr *cmsg;
	socklen_t addr_len;
	int conn;

	conn = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (conn < 0) {
		libcumc_log_errno("socket", NULL, errno);
		return CUDA_ERROR_OPERATING_SYSTEM;
	}
	libcumc_ipc_address(&sun, &addr_len, h->pid);
	/* No such process, or it never exported: the handle names nothing. */
	if (connect(conn, (struct sockaddr *)&sun, addr_len) ||
	    send(conn, h, len, MSG_NOSIGNAL) != (ssize_t)len ||
	    recvmsg(conn, &msg, MSG_CMSG_CLOEXEC) != sizeof(res)) {
		close(conn);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	close(conn);
	cmsg = CMSG_FIRSTHDR(&msg);
	if (res == CUDA_SUCCESS && cmsg && cmsg->cmsg_type == SCM_RIGHTS) {
		memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
		return CUDA_SUCCESS;
	}
	return res == CUDA_SUCCESS ? CUDA_ERROR_INVALID_HANDLE : res;
}

/* Imports and maps the chunk @h names, readable and writable by all. */
static CUresult libcumc_ipc_map(const struct libcumc_driver *drv,
				const struct libcumc_ipc_handle *h,
				CUdeviceptr *base)
{
	struct cumc_import_fd cmd = { .size = sizeof(cmd) };
	struct cumc_access_desc *descs;
	unsigned int i;
	CUresult res;
	int fd;

	res = libcumc_ipc_fetch(&h->name, sizeof(*h), &fd);
	if (res != CUDA_SUCCESS)
		return res;
	cmd.fd = fd;
	res = libcumc_ioctl(drv, CUMC_IMPORT_FD, &cmd, NULL);
	close(fd);
	if (res != CUDA_SUCCESS)
		return res;
	descs = calloc(drv->num_devices, sizeof(*descs));
	if (!descs) {
		res = CUDA_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	for (i = 0; i < drv->num_devices; i++) {
		descs[i].device = i;
		descs[i].access = CUMC_ACCESS_READWRITE;
	}
	res = libcumc_va_map_handle(drv, cmd.out_handle, h->chunk_length,
				    descs, drv->num_devices, base);
	free(descs);
out:
	/* The mapping holds the allocation from here on. */
	libcumc_release_handle(drv, cmd.out_handle);
	if (res == CUDA_SUCCESS || res == CUDA_ERROR_OUT_OF_MEMORY)
		return res;
	return CUDA_ERROR_MAP_FAILED;
}

static struct libcumc_ipc_open *libcumc_ipc_find(int pid,
						 unsigned long long buffer_id)
{
	size_t i;

	for (i = 0; i < libcumc_ipc_num_opens; i++)
		if (libcumc_ipc_opens[i].pid == pid &&
		    libcumc_ipc_opens[i].buffer_id == buffer_id)
			return &libcumc_ipc_opens[i];
	return NULL;
}

CUresult libcumc_impl_cuIpcOpenMemHandle_v2(const struct libcumc_driver *drv,
					    CUdeviceptr *pdptr,
					    CUipcMemHandle handle,
					    unsigned int Flags)
{
	struct libcumc_ipc_handle h;
	struct libcumc_ipc_open *open, *opens;
	CUdeviceptr base;
	CUdevice dev;
	CUresult res;

	if (!pdptr || Flags != CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	memcpy(&h, &handle, sizeof(h));
	if (h.name.magic != CUMC_IPC_MAGIC || !h.chunk_length ||
	    h.offset >= h.chunk_length)
		return CUDA_ERROR_INVALID_HANDLE;
	/* As the real driver: a process does not open its own handles. */
	if (h.name.pid == getpid())
		return CUDA_ERROR_INVALID_CONTEXT;
	pthread_mutex_lock(&libcumc_ipc_open_lock);
	open = libcumc_ipc_find(h.name.pid, h.buffer_id);
	if (open) {
		open->refs++;
		*pdptr = open->addr;
		goto out;
	}
	opens = reallocarray(libcumc_ipc_opens, libcumc_ipc_num_opens + 1,
			     sizeof(*opens));
	if (!opens) {
		res = CUDA_ERROR_OUT_OF_MEMORY;
		goto out;
	}
	libcumc_ipc_opens = opens;
	res = libcumc_ipc_map(drv, &h, &base);
	if (res != CUDA_SUCCESS)
		goto out;
	open = &libcumc_ipc_opens[libcumc_ipc_num_opens++];
	open->pid = h.name.pid;
	open->buffer_id = h.buffer_id;
	open->map_base = base;
	open->map_length = h.chunk_length;
	open->addr = base + h.offset;
	open->refs = 1;
	*pdptr = open->addr;
out:
	pthread_mutex_unlock(&libcumc_ipc_open_lock);
	return res;
}

CUresult libcumc_impl_cuIpcOpenMemHandle(const struct libcumc_driver *drv,
					 CUdeviceptr *pdptr,
					 CUipcMemHandle handle,
					 unsigned int Flags)
	__attribute__((alias("libcumc_impl_cuIpcOpenMemHandle_v2")));

CUresult libcumc_impl_cuIpcCloseMemHandle(const struct libcumc_driver *drv,
					  CUdeviceptr dptr)
{
	struct libcumc_ipc_open *open = NULL;
	CUresult res = CUDA_SUCCESS;
	size_t i;

	pthread_mutex_lock(&libcumc_ipc_open_lock);
	for (i = 0; i < libcumc_ipc_num_opens && !open; i++)
		if (libcumc_ipc_opens[i].addr == dptr)
			open = &libcumc_ipc_opens[i];
	if (!open) {
		res = CUDA_ERROR_INVALID_VALUE;
	} else if (!--open->refs) {
		libcumc_va_unmap_handle(drv, open->map_base, open->map_length);
		*open = libcumc_ipc_opens[--libcumc_ipc_num_opens];
	}
	pthread_mutex_unlock(&libcumc_ipc_open_lock);
	return res;
}

/*
 * An opened event may be exported again: the handle then names the
 * opener, which serves the same page.
 */
CUresult CUDAAPI cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
	struct libcumc_ipc_event_handle h = { .event_id = 0 };
	CUresult res;

	if (!pHandle)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_event_export(event, &h.event_id);
	if (res == CUDA_SUCCESS)
		res = libcumc_ipc_name_self(&h.name, CUMC_IPC_EVENT_MAGIC);
	if (res != CUDA_SUCCESS)
		return res;
	memset(pHandle, 0, sizeof(*pHandle));
	memcpy(pHandle, &h, sizeof(h));
	return CUDA_SUCCESS;
}

/* Each open is an event of its own, with a mapping of its own. */
CUresult CUDAAPI cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
	struct libcumc_ipc_event_handle h;
	struct libcumc_shared_event *shared;
	CUdevice dev;
	CUresult res;
	int fd;

	if (!phEvent)
		return CUDA_ERROR_INVALID_VALUE;
	res = libcumc_current_device(&dev);
	if (res != CUDA_SUCCESS)
		return res;
	memcpy(&h, &handle, sizeof(h));
	if (h.name.magic != CUMC_IPC_EVENT_MAGIC)
		return CUDA_ERROR_INVALID_HANDLE;
	/* As cuIpcOpenMemHandle: a process does not open its own handles. */
	if (h.name.pid == getpid())
		return CUDA_ERROR_INVALID_CONTEXT;
	res = libcumc_ipc_fetch(&h.name, sizeof(h), &fd);
	if (res != CUDA_SUCCESS)
		return res;
	res = libcumc_shared_event_map(fd, &shared);
	close(fd);
	if (res != CUDA_SUCCESS)
		return res;
	return libcumc_event_open_shared(shared, phEvent);
}

/*
 * A forked child has no serving thread and none of its parent's
 * mappings (the module unmaps them from it): it starts over, and its own
 * first export draws a new token.
 */
static void libcumc_ipc_forget_parent(void)
{
	if (libcumc_ipc_server_fd >= 0)
		close(libcumc_ipc_server_fd);
	libcumc_ipc_server_fd = -1;
	free(libcumc_ipc_opens);
	libcumc_ipc_opens = NULL;
	libcumc_ipc_num_opens = 0;
	pthread_mutex_init(&libcumc_ipc_server_lock, NULL);
	pthread_mutex_init(&libcumc_ipc_open_lock, NULL);
}

__attribute__((constructor)) static void libcumc_ipc_atfork(void)
{
	pthread_atfork(NULL, NULL, libcumc_ipc_forget_parent);
}
