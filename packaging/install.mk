# SPDX-License-Identifier: GPL-2.0
#
# make install / make uninstall, included by the top-level Makefile.
#
#   make && sudo make install                      everything, under /usr/local
#   make install DESTDIR=/tmp/stage PREFIX=/usr    into a staging root
#   make install-user ...                          all but the kernel module
#   make install-kmod                              the module alone, + depmod
#   make install-dkms                              the module's DKMS source
#   make deb, make deb-check                       Debian packages, their test
#
# The module goes to /lib/modules/KVER/updates/, KVER being the release the
# built kmod/cumc.ko is for (its vermagic), whatever KDIR built it. depmod
# runs only without DESTDIR: packages run it when they are installed, and a
# staging root is for 'depmod -b ROOT KVER'. The udev rule and the modprobe.d
# and modules-load.d examples go under /etc, where udev, modprobe and
# systemd-modules-load read them whatever PREFIX is. The UAPI headers
# (uapi/linux/cumc.h, cumc_netlink.h) go to INCLUDEDIR/cumc/linux/: with
# pkg-config's -I INCLUDEDIR/cumc, a program includes <linux/cumc.h>.
# libcumc is also LIBDIR/cumc/libcuda.so.1, apart from the library path:
# LD_LIBRARY_PATH=LIBDIR/cumc runs a program built for NVIDIA's driver on it;
# cumc's NVML, LIBDIR/cumc/libnvidia-ml.so.1, is there for the same reason.

DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
SYSCONFDIR ?= /etc
UDEVRULESDIR ?= $(SYSCONFDIR)/udev/rules.d
MODPROBEDIR ?= $(SYSCONFDIR)/modprobe.d
MODULESLOADDIR ?= $(SYSCONFDIR)/modules-load.d
INSTALL_KVER ?= $(shell modinfo -F vermagic kmod/cumc.ko 2>/dev/null | cut -d' ' -f1)
MODDIR ?= /lib/modules/$(INSTALL_KVER)/updates
DEPMOD ?= depmod
INSTALL ?= install

# The pkg-config file of the PREFIX given here, not of the build; libdir and
# includedir stay relative to prefix unless LIBDIR or INCLUDEDIR moved them.
PC_SED = -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' \
	$(if $(filter-out $(PREFIX)/lib,$(LIBDIR)),-e 's|^libdir=.*|libdir=$(LIBDIR)|') \
	$(if $(filter-out $(PREFIX)/include,$(INCLUDEDIR)),-e 's|^includedir=.*|includedir=$(INCLUDEDIR)|')

HEADERS := include/cumc/cuda.h include/cumc/cumc.h include/cumc/nvml.h
UAPI_HEADERS := uapi/linux/cumc.h uapi/linux/cumc_netlink.h
# The control-plane tools, installed when they have been built (make
# ctl-tools), with their section 8 page when man/ has one.
INSTALL_TOOLS := cumcctl cumc-fm cumc-imex
MAN3 := man/libcumc.3 man/cumcMultimemSt.3 man/cumc-nvml.3
MAN3_LINKS := man/cumcMultimemLdReduce.3 man/cumcMultimemRed.3

install: install-user install-kmod

install-user: $(LIB_SO) $(LIB_A) $(NVML_SO)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/cumc \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man3 \
		$(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(MODPROBEDIR) \
		$(DESTDIR)$(MODULESLOADDIR) $(DESTDIR)$(INCLUDEDIR)/cumc/linux
	$(INSTALL) -m 755 $(LIB_SO) $(DESTDIR)$(LIBDIR)/
	ln -sf libcumc.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcumc.so.$(SOVERSION)
	ln -sf libcumc.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libcumc.so
	$(INSTALL) -d $(DESTDIR)$(LIBDIR)/cumc
	ln -sf ../libcumc.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/cumc/libcuda.so.1
	$(INSTALL) -m 755 $(NVML_SO) $(DESTDIR)$(LIBDIR)/cumc/
	$(INSTALL) -m 644 $(LIB_A) $(DESTDIR)$(LIBDIR)/
	$(INSTALL) -m 644 $(HEADERS) $(DESTDIR)$(INCLUDEDIR)/cumc/
	$(INSTALL) -m 644 $(UAPI_HEADERS) $(DESTDIR)$(INCLUDEDIR)/cumc/linux/
	sed $(PC_SED) lib/libcumc.pc.in >$(DESTDIR)$(PKGCONFIGDIR)/libcumc.pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/libcumc.pc
	$(INSTALL) -m 644 $(MAN3) $(MAN3_LINKS) $(DESTDIR)$(MANDIR)/man3/
	@set -e; for t in $(INSTALL_TOOLS); do \
		[ -x $(O)/tools/$$t ] || continue; \
		echo "$(INSTALL) -D -m 755 $(O)/tools/$$t $(DESTDIR)$(BINDIR)/$$t"; \
		$(INSTALL) -D -m 755 $(O)/tools/$$t $(DESTDIR)$(BINDIR)/$$t; \
		[ -f man/$$t.8 ] || continue; \
		$(INSTALL) -D -m 644 man/$$t.8 $(DESTDIR)$(MANDIR)/man8/$$t.8; \
	done
	$(INSTALL) -m 644 packaging/udev/60-cumc.rules $(DESTDIR)$(UDEVRULESDIR)/
	@# An administrator's own cumc.conf is kept.
	[ -e $(DESTDIR)$(MODPROBEDIR)/cumc.conf ] || \
		$(INSTALL) -m 644 packaging/modprobe.d/cumc.conf $(DESTDIR)$(MODPROBEDIR)/
	[ -e $(DESTDIR)$(MODULESLOADDIR)/cumc.conf ] || \
		$(INSTALL) -m 644 packaging/modules-load.d/cumc.conf $(DESTDIR)$(MODULESLOADDIR)/
	@[ -n "$(DESTDIR)" ] || [ "$$(id -u)" != 0 ] || ldconfig

install-kmod:
	@test -e kmod/cumc.ko || { echo "kmod/cumc.ko is not built (run make first)"; exit 1; }
	@test -n "$(INSTALL_KVER)" || { echo "cannot read the kernel release of kmod/cumc.ko"; exit 1; }
	$(INSTALL) -D -m 644 kmod/cumc.ko $(DESTDIR)$(MODDIR)/cumc.ko
	$(if $(DESTDIR),@echo "DESTDIR set: not running depmod (depmod -b ROOT $(INSTALL_KVER))",$(DEPMOD) -a $(INSTALL_KVER))

uninstall: uninstall-user uninstall-kmod

uninstall-user:
	rm -f $(DESTDIR)$(LIBDIR)/libcumc.so.$(VERSION) \
		$(DESTDIR)$(LIBDIR)/libcumc.so.$(SOVERSION) \
		$(DESTDIR)$(LIBDIR)/libcumc.so $(DESTDIR)$(LIBDIR)/libcumc.a \
		$(DESTDIR)$(LIBDIR)/cumc/libcuda.so.1 \
		$(DESTDIR)$(LIBDIR)/cumc/libnvidia-ml.so.1 \
		$(HEADERS:include/cumc/%=$(DESTDIR)$(INCLUDEDIR)/cumc/%) \
		$(UAPI_HEADERS:uapi/%=$(DESTDIR)$(INCLUDEDIR)/cumc/%) \
		$(DESTDIR)$(PKGCONFIGDIR)/libcumc.pc \
		$(patsubst man/%,$(DESTDIR)$(MANDIR)/man3/%,$(MAN3) $(MAN3_LINKS)) \
		$(INSTALL_TOOLS:%=$(DESTDIR)$(BINDIR)/%) \
		$(INSTALL_TOOLS:%=$(DESTDIR)$(MANDIR)/man8/%.8) \
		$(DESTDIR)$(UDEVRULESDIR)/60-cumc.rules
	@# The modprobe.d file goes only when it is still the example.
	! cmp -s packaging/modprobe.d/cumc.conf $(DESTDIR)$(MODPROBEDIR)/cumc.conf || \
		rm -f $(DESTDIR)$(MODPROBEDIR)/cumc.conf
	! cmp -s packaging/modules-load.d/cumc.conf $(DESTDIR)$(MODULESLOADDIR)/cumc.conf || \
		rm -f $(DESTDIR)$(MODULESLOADDIR)/cumc.conf
	-rmdir $(DESTDIR)$(INCLUDEDIR)/cumc/linux $(DESTDIR)$(INCLUDEDIR)/cumc \
		$(DESTDIR)$(LIBDIR)/cumc
	@[ -n "$(DESTDIR)" ] || [ "$$(id -u)" != 0 ] || ldconfig

uninstall-kmod:
	rm -f $(DESTDIR)$(MODDIR)/cumc.ko
	$(if $(DESTDIR),,$(if $(INSTALL_KVER),$(DEPMOD) -a $(INSTALL_KVER)))

# The module's source for DKMS: dkms.conf, kmod/ and uapi/ (Kbuild includes
# ../uapi), in /usr/src/cumc-VERSION as dkms and cumc-dkms expect it.
DKMS_SRCDIR ?= /usr/src/cumc-$(VERSION)
DKMS_FILES = kmod/Kbuild kmod/Makefile \
	$(filter-out %.mod.c,$(wildcard kmod/*.[ch])) $(wildcard uapi/linux/*.h)

install-dkms:
	$(INSTALL) -d $(DESTDIR)$(DKMS_SRCDIR)/kmod $(DESTDIR)$(DKMS_SRCDIR)/uapi/linux
	@set -e; for f in $(DKMS_FILES); do \
		$(INSTALL) -m 644 $$f $(DESTDIR)$(DKMS_SRCDIR)/$$f; \
	done
	sed 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(VERSION)"/' dkms.conf \
		>$(DESTDIR)$(DKMS_SRCDIR)/dkms.conf

uninstall-dkms:
	rm -rf $(DESTDIR)$(DKMS_SRCDIR)

# Debian packages (debian/, scripts/build-deb; make check builds them too),
# and their test: installed with dpkg -i in the VM, the module built there by
# dkms (minutes under TCG: not part of make check).
deb:
	scripts/build-deb $(O)/deb

deb-check: deb
	scripts/vm-run -- scripts/tests/test-deb.sh $(O)/deb

.PHONY: install-dkms uninstall-dkms deb deb-check
.PHONY: install install-user install-kmod uninstall uninstall-user uninstall-kmod
