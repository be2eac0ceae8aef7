#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the generated part of the PTX corpus: one kernel per instruction
form (int.ptx, float.ptx, convert.ptx, bits.ptx, unsupported.ptx), the
atomics' edge kernels (atomic.ptx), and cases.txt, which names every case
of the corpus, the hand-written kernels' (the other *.ptx beside this
file) too.  Run it after changing a table here, then re-record the answers
(record.sh): the answers name cases, so a case renamed or whose inputs
change needs recording again.

    conformance/ptx/gen.py

Every generated kernel takes (out, in, n, total): thread t < total applies
one instruction to inputs read from the set in[0..n), the operands of
thread t being in[t / n] and in[t % n] (binary), in[t / n^2], in[t / n %
n], in[t % n] (ternary) or in[t] (unary), and writes the result to out[t].
The cross product is the point: every edge value meets every other one."""

import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def f32(x):
    return struct.unpack('<I', struct.pack('<f', x))[0]


def f64(x):
    return struct.unpack('<Q', struct.pack('<d', x))[0]


# Input sets: name -> (element bytes, values as unsigned integers).
SETS = {}

SETS['i16'] = (2, [0, 1, 2, 7, 15, 16, 17, 0x7fff, 0x8000, 0x8001, 0xffff,
                   0xfffe, 0x1234, 0xabcd])
SETS['i32'] = (4, [0, 1, 2, 3, 7, 31, 32, 33, 63, 64, 0x7fffffff, 0x80000000,
                   0x80000001, 0xffffffff, 0xfffffffe, 0xfffffff9, 0x12345678,
                   0x89abcdef, 0x0000ffff, 0x00010000, 0x01000001,
                   0x7fffffc0])
SETS['i64'] = (8, [0, 1, 2, 3, 7, 63, 64, 65, 0x7fffffffffffffff,
                   0x8000000000000000, 0x8000000000000001,
                   0xffffffffffffffff, 0xfffffffffffffffe,
                   0xfffffffffffffff9, 0x123456789abcdef0,
                   0xfedcba9876543210, 0xffffffff, 0x100000000, 0x80000000,
                   0xffffffff80000000, 0x0020000000000001,
                   0x7ffffffffffffc00, 0xfffffffffffffbff])
# Zeros, ones, values whose sums and products round, the extremes, the
# denormals, infinities, quiet, signalling and negative NaNs.
SETS['f32'] = (4, [0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x3fc00000,
                   0x40400000, 0x3f800001, 0x3fffffff, 0x3eaaaaab, 0x7f7fffff,
                   0xff7fffff, 0x00800000, 0x007fffff, 0x00000001, 0x80000001,
                   0x80400000, 0x7f800000, 0xff800000, 0x7fc00000, 0x7f800001,
                   0xffc00001, 0x4b800001, 0x33800000, 0x5f800000, 0x2f800000,
                   0xc06ccccd, 0x3f7fffff])
SETS['f32s'] = (4, [0x00000000, 0x80000000, 0x3f800000, 0xbf800001,
                    0x3f800001, 0x3eaaaaab, 0x7f7fffff, 0x00800000, 0x807fffff,
                    0x7f800000, 0xff800000, 0x7fc00000, 0x33800000,
                    0x4b800000, 0x3f7fffff])
SETS['f64'] = (8, [0, 1 << 63, f64(1.0), f64(-1.0), f64(1.5),
                   0x3ff0000000000001, 0x3fd5555555555555, 0x7fefffffffffffff,
                   0xffefffffffffffff, 0x0010000000000000, 0x000fffffffffffff,
                   1, 0x8000000000000001, 0x7ff0000000000000,
                   0xfff0000000000000, 0x7ff8000000000000, 0x7ff0000000000001,
                   0xfff8000000000123, 0x4340000000000001, 0x3ca0000000000000,
                   0x43f0000000000000, 0x3e70000000000000, f64(-3.7)])
SETS['f64s'] = (8, [0, 1 << 63, f64(1.0), 0xbff0000000000001,
                    0x3ff0000000000001, 0x3fd5555555555555, 0x7fefffffffffffff,
                    0x0010000000000000, 0x800fffffffffffff, 0x7ff0000000000000,
                    0xfff0000000000000, 0x7ff8000000000000,
                    0x3ca0000000000000, 0xfff8000000000123])
# Float to integer: halves, the ends of each integer range, beyond them.
_cvt = [0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -1.5, -2.5, 0.49999997, 3.7, -3.7,
        127.5, -128.5, 255.5, 32767.5, -32768.5, 65535.5, 1e10, -1e10,
        2.0 ** 31, -2.0 ** 31, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 2.0 ** 64,
        4294967040.0, float('inf'), float('-inf')]
SETS['cvtf32'] = (4, [f32(x) for x in _cvt] + [0x7fc00000, 0xff800001, 1,
                                                0x80000001, 0x4effffff])
SETS['cvtf64'] = (8, [f64(x) for x in _cvt] + [
    f64(2.0 ** 31 - 0.5), f64(-2.0 ** 31 - 0.5), f64(4294967295.5),
    f64(2147483647.0), 0x7ff8000000000000, 0xfff0000000000001, 1,
    0x8000000000000001, 0x3810000000000000, 0x36a0000000000000,
    0x47efffffe0000000, 0x47efffffffffffff, 0x3ff0000010000000,
    0x3ff0000030000000, 0xbff0000010000001])

# Register declarations and load/store forms of each PTX type.
REG = {'s16': 's16', 'u16': 'u16', 'b16': 'b16', 's32': 's32', 'u32': 'u32',
       'b32': 'b32', 's64': 's64', 'u64': 'u64', 'b64': 'b64', 'f32': 'f32',
       'f64': 'f64', 'pred': 'pred', 's8': 's16', 'u8': 'u16'}
SIZE = {'s8': 1, 'u8': 1, 's16': 2, 'u16': 2, 'b16': 2, 's32': 4, 'u32': 4,
        'b32': 4, 'f32': 4, 's64': 8, 'u64': 8, 'b64': 8, 'f64': 8}

HEAD = """//
// Generated by conformance/ptx/gen.py: edit the tables there, not this.
//
.version 8.0
.target sm_90
.address_size 64
"""


def load(t, setw):
    """The ld type for a register of type t from set elements of setw
    bytes: an integer register wider than the element is extended, a
    narrower one takes the element's low bytes."""
    if SIZE[t] == setw or t[0] == 'f':
        return t
    if SIZE[t] > setw:
        return '%s%d' % ('s' if t[0] == 's' else 'u', setw * 8)
    return t


def kernel(name, arity, stype, dtype, body, btype=None, ctype=None,
           setw=4):
    """One kernel: operands %a (%b, %c) of stype (btype, ctype), read
    from set elements of setw bytes, result %d of dtype, computed by
    body."""
    btype = btype or stype
    ctype = ctype or stype
    regs = {'a': stype, 'b': btype, 'c': ctype}
    lines = ['.visible .entry %s(.param .u64 out, .param .u64 in, '
             '.param .u32 n, .param .u32 total)' % name, '{',
             '\t.reg .pred %p<4>;', '\t.reg .b32 %r<12>;',
             '\t.reg .b64 %rd<12>;']
    for r in 'abc'[:arity]:
        lines.append('\t.reg .%s %%%s;' % (REG[regs[r]], r))
    lines.append('\t.reg .%s %%d;' % REG[dtype])
    lines += ['\tld.param.u64 %rd1, [out];', '\tld.param.u64 %rd2, [in];',
              '\tcvta.to.global.u64 %rd1, %rd1;',
              '\tcvta.to.global.u64 %rd2, %rd2;',
              '\tld.param.u32 %r1, [n];', '\tld.param.u32 %r2, [total];',
              '\tmov.u32 %r3, %ctaid.x;', '\tmov.u32 %r4, %ntid.x;',
              '\tmov.u32 %r5, %tid.x;', '\tmad.lo.u32 %r6, %r3, %r4, %r5;',
              '\tsetp.ge.u32 %p1, %r6, %r2;', '\t@%p1 bra DONE;']
    if arity == 1:
        idx = ['%r6']
    elif arity == 2:
        lines += ['\tdiv.u32 %r7, %r6, %r1;', '\trem.u32 %r8, %r6, %r1;']
        idx = ['%r7', '%r8']
    else:
        lines += ['\tmul.lo.u32 %r9, %r1, %r1;', '\tdiv.u32 %r7, %r6, %r9;',
                  '\tdiv.u32 %r8, %r6, %r1;', '\trem.u32 %r8, %r8, %r1;',
                  '\trem.u32 %r10, %r6, %r1;']
        idx = ['%r7', '%r8', '%r10']
    for k, r in enumerate('abc'[:arity]):
        t = regs[r]
        lines += ['\tmul.wide.u32 %%rd3, %s, %d;' % (idx[k], setw),
                  '\tadd.u64 %rd4, %rd2, %rd3;',
                  '\tld.global.%s %%%s, [%%rd4];' % (load(t, setw), r)]
    lines += ['\t' + b for b in body]
    lines += ['\tmul.wide.u32 %%rd3, %%r6, %d;' % SIZE[dtype],
              '\tadd.u64 %rd4, %rd1, %rd3;',
              '\tst.global.%s [%%rd4], %%d;' % dtype,
              'DONE:', '\tret;', '}', '']
    return '\n'.join(lines)


# The generated cases: (file, kernel, set, arity, result type, ulp bound).
CASES = []
FILES = {}


def add(file, name, arity, stype, dtype, body, sset, ulp=None, **kw):
    FILES.setdefault(file, []).append(kernel(name, arity, stype, dtype, body,
                                             setw=SETS[sset][0], **kw))
    CASES.append((file, name, sset, arity, dtype, ulp))


def op2(file, name, t, insn, sset, dtype=None, ulp=None):
    add(file, name, 2, t, dtype or t, ['%s %%d, %%a, %%b;' % insn], sset,
        ulp)


def op1(file, name, t, insn, sset, dtype=None, ulp=None):
    add(file, name, 1, t, dtype or t, ['%s %%d, %%a;' % insn], sset, ulp)


def cname(insn):
    return insn.replace('.', '_')


# Integers.
for t, s in (('s32', 'i32'), ('u32', 'i32'), ('s64', 'i64'), ('u64', 'i64'),
             ('s16', 'i16'), ('u16', 'i16')):
    ops = ['add', 'sub', 'mul.lo', 'mul.hi', 'div', 'rem', 'min', 'max']
    if t == 's32':
        ops += ['add.sat', 'sub.sat']
    for o in ops:
        insn = '%s.%s' % (o, t)
        op2('int.ptx', cname(insn), t, insn, s)
    if SIZE[t] < 8:
        wide = {'s32': 's64', 'u32': 'u64', 's16': 's32', 'u16': 'u32'}[t]
        insn = 'mul.wide.' + t
        op2('int.ptx', cname(insn), t, insn, s, dtype=wide)
    for c in (['eq', 'ne', 'lt', 'le', 'gt', 'ge'] if t[0] == 's' else
              ['lo', 'ls', 'hi', 'hs']):
        insn = 'setp.%s.%s' % (c, t)
        add('int.ptx', cname(insn), 2, t, 'u32',
            [insn + ' %p2, %a, %b;', 'selp.u32 %d, 1, 0, %p2;'], s)
    if t[0] == 's':
        for o in ('abs', 'neg'):
            insn = '%s.%s' % (o, t)
            op1('int.ptx', cname(insn), t, insn, s)
for t, s in (('b32', 'i32'), ('b64', 'i64'), ('b16', 'i16')):
    for o in ('and', 'or', 'xor'):
        op2('int.ptx', cname(o + '.' + t), t, o + '.' + t, s)
    for o in ('not', 'cnot'):
        op1('int.ptx', cname(o + '.' + t), t, o + '.' + t, s)
    for o in ('shl.' + t, 'shr.' + t, 'shr.' + t.replace('b', 's')):
        st = o.split('.')[1]
        add('int.ptx', cname(o), 2, st, st, ['%s %%d, %%a, %%b;' % o], s,
            btype='u32')
    if t != 'b16':
        for o in ('popc', 'clz'):
            op1('int.ptx', cname(o + '.' + t), t, o + '.' + t, s,
                dtype='u32')
        op1('int.ptx', cname('brev.' + t), t, 'brev.' + t, s)
# mad: a * b + c over a smaller set (the cube of it).
SETS['i32s'] = (4, [0, 1, 2, 0x7fffffff, 0x80000000, 0x80000001, 0xffffffff,
                    0xfffffff9, 0x12345678, 0x89abcdef, 0x00010000])
SETS['i64s'] = (8, [0, 1, 2, 0x7fffffffffffffff, 0x8000000000000000,
                    0xffffffffffffffff, 0xfffffffffffffff9,
                    0x123456789abcdef0, 0xfedcba9876543210, 0x100000000])
for t, s in (('s32', 'i32s'), ('u32', 'i32s'), ('s64', 'i64s'),
             ('u64', 'i64s')):
    for o in ('mad.lo', 'mad.hi'):
        insn = '%s.%s' % (o, t)
        add('int.ptx', cname(insn), 3, t, t, [insn + ' %d, %a, %b, %c;'], s)
    if SIZE[t] == 4:
        insn = 'mad.wide.' + t
        wide = t[0] + '64'
        add('int.ptx', cname(insn), 3, t, wide,
            [insn + ' %d, %a, %b, %c;'], s, ctype=wide)
add('int.ptx', 'mad_hi_sat_s32', 3, 's32', 's32',
    ['mad.hi.sat.s32 %d, %a, %b, %c;'], 'i32s')
add('int.ptx', 'mul24_lo_s32', 2, 's32', 's32', ['mul24.lo.s32 %d, %a, %b;'],
    'i32')
add('int.ptx', 'sad_u32', 3, 'u32', 'u32', ['sad.u32 %d, %a, %b, %c;'],
    'i32s')
for insn in ('mul24.hi.s32', 'mul24.lo.u32', 'mul24.hi.u32'):
    op2('int.ptx', cname(insn), insn.split('.')[-1], insn, 'i32')
for insn in ('mad24.lo.s32', 'mad24.hi.u32', 'mad24.hi.sat.s32', 'sad.s32',
             'sad.u64', 'sad.s64'):
    t = insn.split('.')[-1]
    add('int.ptx', cname(insn), 3, t, t, [insn + ' %d, %a, %b, %c;'],
        'i64s' if t[1:] == '64' else 'i32s')
# Predicate logic and the combining setp forms, selp on each type.
add('int.ptx', 'pred_logic', 2, 's32', 'u32',
    ['setp.lt.s32 %p1, %a, 0;', 'setp.gt.s32 %p2, %b, 7;',
     'and.pred %p3, %p1, %p2;', 'selp.u32 %r9, 1, 0, %p3;',
     'or.pred %p3, %p1, %p2;', 'selp.u32 %r10, 2, 0, %p3;',
     'add.u32 %r9, %r9, %r10;', 'xor.pred %p3, %p1, %p2;',
     'selp.u32 %r10, 4, 0, %p3;', 'add.u32 %r9, %r9, %r10;',
     'not.pred %p3, %p1;', 'selp.u32 %r10, 8, 0, %p3;',
     'add.u32 %r9, %r9, %r10;',
     'setp.ne.and.s32 %p3|%p1, %a, %b, %p2;', 'selp.u32 %r10, 16, 0, %p3;',
     'add.u32 %r9, %r9, %r10;', 'selp.u32 %r10, 32, 0, %p1;',
     'add.u32 %r9, %r9, %r10;',
     'setp.le.u32.or %p3, %a, %b, %p2;', 'selp.u32 %r10, 64, 0, %p3;',
     'add.u32 %r9, %r9, %r10;',
     'setp.hi.xor.u32 %p3, %a, %b, !%p2;', 'selp.u32 %r10, 128, 0, %p3;',
     'add.u32 %d, %r9, %r10;'], 'i32')
for t, s in (('s32', 'i32'), ('u64', 'i64'), ('f32', 'f32'), ('f64', 'f64')):
    add('int.ptx', 'selp_' + t, 2, t, t,
        ['setp.ne.%s %%p2, %%a, %%b;' % t, 'selp.%s %%d, %%a, %%b, %%p2;' % t],
        s)

# Floating point, every rounding mode, with and without .ftz.
RND = ('rn', 'rz', 'rm', 'rp')
for t, s, ss in (('f32', 'f32', 'f32s'), ('f64', 'f64', 'f64s')):
    ftzs = ('', '.ftz') if t == 'f32' else ('',)
    for o in ('add', 'sub', 'mul', 'div'):
        for r in RND:
            for z in ftzs:
                insn = '%s.%s%s.%s' % (o, r, z, t)
                op2('float.ptx', cname(insn), t, insn, s)
    for r in RND:
        for z in ftzs:
            insn = 'fma.%s%s.%s' % (r, z, t)
            add('float.ptx', cname(insn), 3, t, t,
                [insn + ' %d, %a, %b, %c;'], ss)
        for o in ('sqrt', 'rcp'):
            for z in ftzs:
                insn = '%s.%s%s.%s' % (o, r, z, t)
                op1('float.ptx', cname(insn), t, insn, s)
    for o in ('min', 'max'):
        for z in ftzs:
            insn = '%s%s.%s' % (o, z, t)
            op2('float.ptx', cname(insn), t, insn, s)
    for o in ('abs', 'neg'):
        for z in ftzs:
            insn = '%s%s.%s' % (o, z, t)
            op1('float.ptx', cname(insn), t, insn, s)
    for c in ('eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu', 'leu',
              'gtu', 'geu', 'num', 'nan'):
        insn = 'setp.%s.%s' % (c, t)
        add('float.ptx', cname(insn), 2, t, 'u32',
            [insn + ' %p2, %a, %b;', 'selp.u32 %d, 1, 0, %p2;'], s)
    if t == 'f32':
        for insn in ('add.sat.f32', 'mul.rz.sat.f32', 'add.rn.ftz.sat.f32'):
            op2('float.ptx', cname(insn), t, insn, s)
        add('float.ptx', 'fma_rn_sat_f32', 3, t, t,
            ['fma.rn.sat.f32 %d, %a, %b, %c;'], ss)
        add('float.ptx', 'mad_rn_f32', 3, t, t,
            ['mad.rn.f32 %d, %a, %b, %c;'], ss)
        add('float.ptx', 'setp_lt_ftz_f32', 2, t, 'u32',
            ['setp.lt.ftz.f32 %p2, %a, %b;', 'selp.u32 %d, 1, 0, %p2;'], s)
# .approx forms: within the ulp bounds the PTX ISA documents (rcp.approx
# and sqrt.approx f32: 1 ulp ... the check allows what the bound column
# of cases.txt says; div.full.f32: 2 ulp).
for insn, ulp in (('div.approx.f32', 2), ('div.approx.ftz.f32', 2),
                  ('div.full.f32', 2), ('div.full.ftz.f32', 2)):
    op2('float.ptx', cname(insn), 'f32', insn, 'f32', ulp=ulp)
for insn, ulp in (('sqrt.approx.f32', 1), ('sqrt.approx.ftz.f32', 1),
                  ('rcp.approx.f32', 1), ('rcp.approx.ftz.f32', 1)):
    op1('float.ptx', cname(insn), 'f32', insn, 'f32', ulp=ulp)

# Conversions.
ITYPES = ('s8', 'u8', 's16', 'u16', 's32', 'u32', 's64', 'u64')
for st, s in (('s32', 'i32'), ('u32', 'i32'), ('s64', 'i64'), ('u64', 'i64'),
              ('s16', 'i16'), ('u16', 'i16')):
    for dt in ITYPES:
        if dt == st:
            continue
        # .sat only where the result can saturate, as ptxas allows it.
        fits = SIZE[dt] > SIZE[st] and (dt[0] == 's' or st[0] == 'u')
        for sat in ('',) if fits else ('', '.sat'):
            insn = 'cvt%s.%s.%s' % (sat, dt, st)
            # An 8-bit result lands in a 16-bit register (sign- or
            # zero-extended as cvt defines): stored as 16 bits.
            dreg = {'s8': 's16', 'u8': 'u16'}.get(dt, dt)
            op1('convert.ptx', cname(insn), st, insn, s, dtype=dreg)
for ft, s in (('f32', 'cvtf32'), ('f64', 'cvtf64')):
    for dt in ('s8', 'u8', 's16', 'u16', 's32', 'u32', 's64', 'u64'):
        for r in ('rni', 'rzi', 'rmi', 'rpi'):
            for z in (('', '.ftz') if ft == 'f32' and r == 'rzi' else ('',)):
                insn = 'cvt.%s%s.%s.%s' % (r, z, dt, ft)
                dreg = {'s8': 's16', 'u8': 'u16'}.get(dt, dt)
                op1('convert.ptx', cname(insn), ft, insn, s, dtype=dreg)
for st, s in (('s32', 'i32'), ('u32', 'i32'), ('s64', 'i64'), ('u64', 'i64'),
              ('s16', 'i16'), ('u16', 'i16')):
    for ft in ('f32', 'f64'):
        for r in RND:
            if ft == 'f64' and SIZE[st] < 8 and r != 'rn':
                continue	# exact: one mode is enough
            insn = 'cvt.%s.%s.%s' % (r, ft, st)
            op1('convert.ptx', cname(insn), st, insn, s, dtype=ft)
for insn in ('cvt.f64.f32', 'cvt.ftz.f64.f32'):
    op1('convert.ptx', cname(insn), 'f32', insn, 'cvtf32', dtype='f64')
    op1('convert.ptx', cname(insn) + '_e', 'f32', insn, 'f32', dtype='f64')
for r in RND:
    for m in ('', '.ftz', '.sat'):
        insn = 'cvt.%s%s.f32.f64' % (r, m)
        op1('convert.ptx', cname(insn), 'f64', insn, 'cvtf64', dtype='f32')
        op1('convert.ptx', cname(insn) + '_e', 'f64', insn, 'f64',
            dtype='f32')
for t, s in (('f32', 'f32'), ('f64', 'f64')):
    for r in ('rni', 'rzi', 'rmi', 'rpi'):
        for m in (('', '.ftz', '.sat') if t == 'f32' else ('', '.sat')):
            insn = 'cvt.%s%s.%s.%s' % (r, m, t, t)
            op1('convert.ptx', cname(insn), t, insn, s)
    sc = 'cvtf32' if t == 'f32' else 'cvtf64'
    for r in ('rni', 'rmi'):
        insn = 'cvt.%s.%s.%s' % (r, t, t)
        op1('convert.ptx', cname(insn) + '_c', t, insn, sc)
for insn in ('cvt.ftz.f32.f32', 'cvt.sat.f32.f32', 'cvt.ftz.sat.f32.f32'):
    op1('convert.ptx', cname(insn), 'f32', insn, 'f32')


# Bit-field, permute and three-input logic instructions.
U = 'bits.ptx'
SETS['bits'] = (4, [0, 1, 4, 8, 16, 31, 32, 33, 0xff, 0x80000000,
                    0xffffffff, 0x12345678, 0x89abcdef, 0x3210, 0x7654])
for t in ('u32', 's32'):
    insn = 'bfe.' + t
    add(U, cname(insn), 3, t, t, [insn + ' %d, %a, %b, %c;'], 'bits',
        btype='u32', ctype='u32')
for t, s in (('u64', 'i64s'), ('s64', 'i64s')):
    insn = 'bfe.' + t
    add(U, cname(insn), 3, t, t, [insn + ' %d, %a, %b, %c;'], 'bits',
        btype='u32', ctype='u32')
add(U, 'bfi_b32', 3, 'b32', 'b32', ['bfi.b32 %d, %a, %b, %c, 13;'], 'bits')
add(U, 'bfi_b32_len', 3, 'b32', 'b32', ['bfi.b32 %d, %a, %b, 5, %c;'],
    'bits')
add(U, 'prmt_b32', 3, 'b32', 'b32', ['prmt.b32 %d, %a, %b, %c;'], 'bits')
for m in ('f4e', 'b4e', 'rc8', 'ecl', 'ecr', 'rc16'):
    add(U, 'prmt_b32_' + m, 3, 'b32', 'b32',
        ['prmt.b32.%s %%d, %%a, %%b, %%c;' % m], 'bits')
for lut in (0x96, 0xe8, 0xca, 0x1e, 0x00, 0xff):
    add(U, 'lop3_b32_%02x' % lut, 3, 'b32', 'b32',
        ['lop3.b32 %%d, %%a, %%b, %%c, 0x%02x;' % lut], 'bits')
for t, s in (('f32', 'f32'), ('f64', 'f64')):
    for m in ('finite', 'infinite', 'number', 'notanumber', 'normal',
              'subnormal'):
        insn = 'testp.%s.%s' % (m, t)
        add('float.ptx', cname(insn), 1, t, 'u32',
            [insn + ' %p2, %a;', 'selp.u32 %d, 1, 0, %p2;'], s)
    op2('float.ptx', 'copysign_' + t, t, 'copysign.' + t, s)

# What cumc does not execute yet (the load fails): recorded all the same,
# so that the answers are there when it does; known-differences.txt lists
# them.  One file, so that the rest loads.
U = 'unsupported.ptx'
for insn in ('ex2.approx.ftz.f32', 'lg2.approx.ftz.f32', 'sin.approx.ftz.f32',
             'cos.approx.ftz.f32', 'rsqrt.approx.ftz.f32', 'tanh.approx.f32',
             'ex2.approx.f32', 'rsqrt.approx.f64', 'rcp.approx.ftz.f64'):
    t = insn.split('.')[-1]
    op1(U, cname(insn), t, insn, t)
add(U, 'cvt_rn_f16_f32', 1, 'f32', 'b16', ['cvt.rn.f16.f32 %d, %a;'], 'f32')
add(U, 'cvt_rz_f16_f32', 1, 'f32', 'b16', ['cvt.rz.f16.f32 %d, %a;'], 'f32')
add(U, 'cvt_f32_f16', 1, 'b16', 'f32', ['cvt.f32.f16 %d, %a;'], 'i16')
add(U, 'cvt_rn_bf16_f32', 1, 'f32', 'b16', ['cvt.rn.bf16.f32 %d, %a;'],
    'f32')
add(U, 'cvt_f32_bf16', 1, 'b16', 'f32', ['cvt.f32.bf16 %d, %a;'], 'i16')
# Half precision arithmetic on the bit patterns of i16 (i32 for pairs).
for insn in ('add.rn.f16', 'mul.rn.f16', 'add.rn.bf16', 'min.NaN.f32',
             'max.NaN.f32'):
    t = 'f32' if insn.endswith('f32') else 'b16'
    op2(U, cname(insn), t, insn, 'f32' if t == 'f32' else 'i16')
add(U, 'fma_rn_f16x2', 3, 'b32', 'b32', ['fma.rn.f16x2 %d, %a, %b, %c;'],
    'bits')
add(U, 'cvt_rn_f16x2_f32', 2, 'f32', 'b32',
    ['cvt.rn.f16x2.f32 %d, %a, %b;'], 'f32')


# Atomics on single words, every operator against every pair of edge
# values: thread i of n stores in[i] into its own slot, applies the
# operation with operand in[j] and writes the word after it and the value
# returned (red: the operand) to out[((i * n + j) * K + k) * 2 + 0, 1].
ATOMS = {
    'u32': ('i32', 'b32', ['atom.global.add.u32', 'atom.global.exch.b32',
                           'atom.global.cas.b32', 'atom.global.min.u32',
                           'atom.global.max.u32', 'atom.global.min.s32',
                           'atom.global.max.s32', 'atom.global.inc.u32',
                           'atom.global.dec.u32', 'atom.global.and.b32',
                           'atom.global.or.b32', 'atom.global.xor.b32',
                           'red.global.inc.u32', 'atom.add.u32']),
    'u64': ('i64', 'b64', ['atom.global.add.u64', 'atom.global.exch.b64',
                           'atom.global.cas.b64', 'atom.global.min.u64',
                           'atom.global.max.u64', 'atom.global.min.s64',
                           'atom.global.max.s64', 'atom.global.and.b64',
                           'atom.global.or.b64', 'atom.global.xor.b64']),
    'f32': ('f32', 'f32', ['atom.global.add.f32', 'red.global.add.f32']),
    'f64': ('f64', 'f64', ['atom.global.add.f64']),
}


def atom_kernel(name, t, ops):
    w = 8 if t in ('b64', 'f64') else 4
    k = len(ops)
    lines = ['.visible .entry %s(.param .u64 out, .param .u64 in, '
             '.param .u32 n, .param .u32 total)' % name, '{',
             '\t.reg .pred %p<4>;', '\t.reg .b32 %r<12>;',
             '\t.reg .b64 %rd<12>;', '\t.reg .%s %%a, %%b, %%o, %%x;' % t,
             '\tld.param.u64 %rd1, [out];', '\tld.param.u64 %rd2, [in];',
             '\tcvta.to.global.u64 %rd1, %rd1;',
             '\tcvta.to.global.u64 %rd2, %rd2;',
             '\tld.param.u32 %r1, [n];', '\tmov.u32 %r6, %tid.x;',
             '\tmul.wide.u32 %%rd3, %%r6, %d;' % w,
             '\tadd.u64 %rd3, %rd2, %rd3;',
             '\tld.global.%s %%a, [%%rd3];' % t,
             '\tmov.u32 %r7, 0;', 'NEXT:',
             '\tmul.wide.u32 %%rd3, %%r7, %d;' % w,
             '\tadd.u64 %rd3, %rd2, %rd3;',
             '\tld.global.%s %%b, [%%rd3];' % t,
             '\tmad.lo.u32 %r8, %r6, %r1, %r7;',
             '\tmul.lo.u32 %%r8, %%r8, %d;' % k,
             '\tmul.wide.u32 %%rd4, %%r8, %d;' % (2 * w),
             '\tadd.u64 %rd4, %rd1, %rd4;']
    for i, op in enumerate(ops):
        a = '[%%rd4+%d]' % (2 * w * i)
        lines.append('\tst.global.%s %s, %%a;' % (t, a))
        if op.startswith('red'):
            lines += ['\t%s %s, %%b;' % (op, a), '\tmov.%s %%o, %%b;' % t]
        elif '.cas.' in op:
            lines += ['\tmov.%s %%x, 0x5a5a5a5a%s;' % (
                t, '5a5a5a5a' if w == 8 else ''),
                '\t%s %%o, %s, %%b, %%x;' % (op, a)]
        elif op.startswith('atom.add'):	# generic address
            lines += ['\tcvta.global.u64 %rd5, %rd4;',
                      '\tadd.u64 %%rd5, %%rd5, %d;' % (2 * w * i),
                      '\t%s %%o, [%%rd5], %%b;' % op]
        else:
            lines.append('\t%s %%o, %s, %%b;' % (op, a))
        lines.append('\tst.global.%s [%%rd4+%d], %%o;' % (t, 2 * w * i + w))
    lines += ['\tadd.u32 %r7, %r7, 1;', '\tsetp.lt.u32 %p1, %r7, %r1;',
              '\t@%p1 bra NEXT;', '\tret;', '}', '']
    return '\n'.join(lines)


for t, (sset, rt, ops) in ATOMS.items():
    FILES.setdefault('atomic.ptx', []).append(atom_kernel('atom_edge_' + t,
                                                          rt, ops))

# The hand-written kernels: (name, file, kernel, set, grid, block, total,
# result elements, element bytes).
HAND = [
    # Special registers over a 3-D grid of 3-D blocks.
    ('sreg', 'special.ptx', 'sreg', 'i32', '2x3x2', '4x3x5', 720, 720 * 8, 4),
    ('branch', 'control.ptx', 'branch', 'i32', '2x1x1', '64x1x1', 128, 128 * 4,
     4),
    ('loop', 'control.ptx', 'loop', 'i32', '1x1x1', '96x1x1', 96, 96, 4),
    ('calls', 'control.ptx', 'calls', 'i32', '1x1x1', '64x1x1', 64, 64 * 2, 4),
    ('shared', 'memory.ptx', 'shared', 'i32', '3x1x1', '128x1x1', 384,
     384 * 2, 4),
    ('local', 'memory.ptx', 'local', 'i32', '1x1x1', '64x1x1', 64, 64 * 2, 4),
    ('const', 'memory.ptx', 'constant', 'i32', '1x1x1', '32x1x1', 32, 32 * 4,
     4),
    ('param', 'memory.ptx', 'param', 'i32', '1x1x1', '1x1x1', 1, 16, 4),
    ('widths', 'memory.ptx', 'widths', 'i32', '1x1x1', '22x1x1', 22, 22 * 12,
     4),
    ('vector', 'memory.ptx', 'vector', 'i32', '1x1x1', '5x1x1', 5, 5 * 8, 4),
    ('global', 'memory.ptx', 'globals', 'i32', '2x1x1', '32x1x1', 64, 64 * 2,
     4),
    ('atom_edge_u32', 'atomic.ptx', 'atom_edge_u32', 'i32', '1x1x1',
     '22x1x1', 22, 22 * 22 * 14 * 2, 4),
    ('atom_edge_u64', 'atomic.ptx', 'atom_edge_u64', 'i64', '1x1x1',
     '23x1x1', 23, 23 * 23 * 10 * 2, 8),
    ('atom_edge_f32', 'atomic.ptx', 'atom_edge_f32', 'f32', '1x1x1',
     '27x1x1', 27, 27 * 27 * 2 * 2, 4),
    ('atom_edge_f64', 'atomic.ptx', 'atom_edge_f64', 'f64', '1x1x1',
     '23x1x1', 23, 23 * 23 * 2, 8),
    ('atom_contended', 'contended.ptx', 'atom_contended', 'i32', '8x1x1',
     '256x1x1', 2048, 16 + 2048 + 2048, 4),
    ('atom_shared', 'contended.ptx', 'atom_shared', 'i32', '4x1x1', '128x1x1',
     512, 4 * 16 + 512, 4),
    ('warp_shfl', 'warp.ptx', 'warp_shfl', 'i32', '1x1x1', '64x1x1', 64,
     64 * 16, 4),
    ('warp_vote', 'warp.ptx', 'warp_vote', 'i32', '1x1x1', '80x1x1', 80,
     80 * 12, 4),
    ('warp_match', 'warp.ptx', 'warp_match', 'i32', '1x1x1', '64x1x1', 64,
     64 * 8, 4),
    ('warp_redux', 'warp.ptx', 'warp_redux', 'i32', '1x1x1', '64x1x1', 64,
     64 * 12, 4),
]


def main():
    for f, ks in FILES.items():
        with open(os.path.join(here, f), 'w') as out:
            out.write(HEAD + '\n' + '\n'.join(ks))
    with open(os.path.join(here, 'cases.txt'), 'w') as out:
        out.write('# Generated by conformance/ptx/gen.py: the PTX corpus.\n'
                  '# set NAME BYTES VALUE...: an input set, in hex.\n'
                  '# case NAME FILE KERNEL SET GRID BLOCK TOTAL OUTN BYTES'
                  ' ARITY [ULP]:\n# launch KERNEL of FILE on GRID blocks of'
                  ' BLOCK threads with (out, in,\n# n, total), in holding '
                  'SET, out (zeroed) OUTN elements of BYTES\n# bytes; '
                  'ARITY: the operands a thread reads from SET (0: a\n# '
                  'hand-written kernel); ULP: an .approx case, the ulp bound'
                  ' it is\n# checked to.\n')
        for name, (w, vals) in SETS.items():
            out.write('set %s %d %s\n' % (name, w, ' '.join(
                '%x' % v for v in vals)))
        for f, k, s, arity, dt, ulp in CASES:
            n = len(SETS[s][1])
            total = n ** arity
            block = 256
            grid = (total + block - 1) // block
            out.write('case %s %s %s %s %dx1x1 %dx1x1 %d %d %d %d%s\n' % (
                k, f, k, s, grid, block, total, total, SIZE[dt], arity,
                ' %d' % ulp if ulp else ''))
        for name, f, k, s, g, b, total, outn, w in HAND:
            out.write('case %s %s %s %s %s %s %d %d %d 0\n' % (
                name, f, k, s, g, b, total, outn, w))


main()
