/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device address space: arenas, reservations, mappings, and the VMAs the
 * module makes in a client's process (cumc_va.c, cumc_vm.c).
 */
#ifndef _CUMK_VA_H
#define _CUMK_VA_H

#include <linux/list.h>
#include <linux/mm_types.h>
#include <linux/rwsem.h>
#include <linux/types.h>
#include <linux/cumc.h>
#include "cumc_range.h"

struct cumk_client;
struct cumk_grant;
struct cumk_mc;
struct cumk_mem;
struct cumk_object;
struct cumk_ucmd;
struct file;

/**
 * struct cumk_vm_request - a mapping cumk_vm_map() is to make
 * @addr: preferred start, or 0
 * @length: bytes
 * @alignment: of the start address, a power of two
 * @stagger: bytes, page-aligned: the start is that far past an aligned
 *           address
 * @pgoff: the file offset that names what the mapping shows
 * @writable: map read-write, else read-only
 * @vm_ops: the VMA's operations
 * @private: the VMA's private data, which its close() releases
 * @attach: if set, called with the new VMA and @attach_arg under the
 *          mmap_lock held for writing, once the VMA owns @private, before
 *          anyone can see it
 * @attach_arg: its argument
 * @taken: set once a VMA owns @private
 */
struct cumk_vm_request {
	u64 addr;
	u64 length;
	u64 alignment;
	u64 stagger;
	unsigned long pgoff;
	bool writable;
	const struct vm_operations_struct *vm_ops;
	void *private;
	void (*attach)(struct vm_area_struct *vma, void *arg);
	void *attach_arg;
	bool taken;
};

/**
 * struct cumk_mapping - an object mapped into a reservation
 * @addr: start address
 * @length: bytes: an allocation's whole length, or the start of a
 *          multicast object
 * @obj: the allocation or multicast object; the mapping holds a reference
 * @readers: devices that may read through the mapping
 * @writers: devices that may write through the mapping
 * @populated: an allocation's: a page of it was ever inserted; set by the
 *             fault handler, so that taking an untouched mapping away
 *             zaps nothing
 * @unmap_link: in CUMC_UNMAP's list of mappings to free
 * @range: its entry in its reservation's @mappings, over [@addr,
 *         @addr + @length)
 * @grant: a multicast object's (whose pages the CPU never touches: it
 *         shares @populated's place, keeping the struct at 128 bytes):
 *         once a view was made from it, its grant; set once, with
 *         cmpxchg() under the reservation's lock for reading
 */
struct cumk_mapping {
	struct cumk_range range;
	u64 addr;
	u64 length;
	struct cumk_object *obj;
	DECLARE_BITMAP(readers, CUMC_MAX_DEVICES);
	DECLARE_BITMAP(writers, CUMC_MAX_DEVICES);
	union {
		bool populated;
		struct cumk_grant *grant;
	};
	struct list_head unmap_link;
};

/**
 * struct cumk_arena - address space a client sub-allocates reservations from
 * @client: the client whose VMA it is; the VMA holds the client's file, so
 *          the client outlives the arena
 * @mm: the process it is in, compared only: a forked child shares the
 *      client but not the arena (VM_DONTCOPY)
 * @start: its VMA's start, fixed for life (the VMA cannot move or split)
 * @length: its VMA's length
 * @pgoff: the file offsets of its VMA (see cumc_vm.c)
 * @single: made for one reservation (a hint outside every arena, or no room
 *          for a shared one), which alone it holds: freeing it unmaps the
 *          arena. Never in @client's list.
 * @closing: empty and being unmapped (cumk_va_flush()): takes no new
 *           reservation; under @lock
 * @link: in @client's arenas, under its arenas_lock (shared arenas only)
 * @lock: protects @reservations, @cursor, every reservation's mappings and
 *        the mappings in them; taken after mmap_lock and the client's
 *        arenas_lock. Every path to an arena goes through its VMA under
 *        mmap_lock or through the client's list under arenas_lock, either
 *        of which keeps the arena alive.
 * @reservations: address range -> struct cumk_va
 * @cursor: no byte of the arena below it is free: the first-fit search
 *          for room starts there
 */
struct cumk_arena {
	struct cumk_client *client;
	struct mm_struct *mm;
	u64 start;
	u64 length;
	unsigned long pgoff;
	bool single;
	bool closing;
	struct list_head link;
	struct rw_semaphore lock;
	struct cumk_range_map reservations;
	u64 cursor;
};

/**
 * struct cumk_va - a reservation of device address space, a range of an arena
 * @range: its entry in its arena's @reservations, over [@addr, @addr +
 *         @length); the arena owns the reservation and frees it with itself
 * @arena: the arena, under whose lock it is read and changed
 * @client: the client that made it, charged one address range for it and
 *          the bytes of its mappings
 * @addr: start address
 * @length: bytes
 * @mappings: address range -> struct cumk_mapping
 */
struct cumk_va {
	struct cumk_range range;
	struct cumk_arena *arena;
	struct cumk_client *client;
	u64 addr;
	u64 length;
	struct cumk_range_map mappings;
};

/* cumc_vm.c: mappings the module makes in a client's process */
int cumk_vm_init(void);
void cumk_vm_exit(void);
void cumk_vm_open(struct file *filp);
/*
 * Each owner of offsets gets a slot of 2^47 bytes of them; slot 0 is unused
 * and the last ends below 2^63, as loff_t needs.
 */
#define CUMK_VM_SLOT_SHIFT 47
#define CUMK_VM_MAX_SLOTS ((1U << (63 - CUMK_VM_SLOT_SHIFT)) - 1)
/* What one owner of file offsets may map: a reservation, all member views. */
#define CUMK_VM_MAX_OFFSETS BIT_ULL(CUMK_VM_SLOT_SHIFT)
int cumk_vm_alloc_offsets(void *owner, unsigned long *pgoff);
void cumk_vm_free_offsets(unsigned long pgoff);
void cumk_vm_zap(unsigned long pgoff, u64 length);
void cumk_vm_zap_all(void);
vm_fault_t cumk_vm_fault_error(int err);
unsigned long cumk_vm_get_unmapped_area(struct file *filp, unsigned long addr,
					unsigned long len, unsigned long pgoff,
					unsigned long flags);
int cumk_vm_mmap(struct file *filp, struct vm_area_struct *vma);
unsigned long cumk_vm_map(struct file *filp, struct cumk_vm_request *req);
void cumk_vm_unmap(unsigned long addr, u64 length);
int cumk_vm_may_split(struct vm_area_struct *vma, unsigned long addr);
int cumk_vm_mremap(struct vm_area_struct *vma);
int cumk_vm_mprotect(struct vm_area_struct *vma, unsigned long start,
		     unsigned long end, unsigned long newflags);

/* cumc_va.c: device address space */
int cumk_va_ioctl_reserve(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_free(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_map(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_unmap(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_set_access(struct cumk_ucmd *ucmd);
int cumk_va_ioctl_query(struct cumk_ucmd *ucmd);
void cumk_va_flush(struct cumk_client *client);
struct cumk_mem *cumk_va_resolve(struct cumk_client *client, u64 addr,
				 u64 length, u64 *mem_offset);
struct cumk_mc *cumk_va_mc_mapping(struct cumk_client *client, u64 addr,
				   u64 *map_addr, u64 *length,
				   struct cumk_grant **grant);

#endif /* _CUMK_VA_H */
