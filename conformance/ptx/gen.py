#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the generated part of the PTX corpus: one kernel per instruction
form (int.ptx, float.ptx, convert.ptx, bits.ptx, half.ptx), the
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
           setw=4, decl=()):
    """One kernel: operands %a (%b, %c) of stype (btype, ctype), read
    from set elements of setw bytes, result %d of dtype, computed by
    body, which may use the registers decl declares."""
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
    lines += ['\t' + x for x in decl]
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


# The generated cases: (file, kernel, set, arity, result type, bound).
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
for t, s in (('u32', 'i32'), ('s32', 'i32'), ('u64', 'i64'), ('s64', 'i64')):
    for insn in ('bfind.' + t, 'bfind.shiftamt.' + t):
        op1('int.ptx', cname(insn), t, insn, s, dtype='u32')
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
# .sat from an integer: the result clamped to [0, 1].
for st, s in (('s32', 'i32'), ('u32', 'i32'), ('s64', 'i64')):
    for ft in ('f32', 'f64'):
        insn = 'cvt.rn.sat.%s.%s' % (ft, st)
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
for d in ('l', 'r'):
    for m in ('wrap', 'clamp'):
        insn = 'shf.%s.%s.b32' % (d, m)
        add(U, cname(insn), 3, 'b32', 'b32', [insn + ' %d, %a, %b, %c;'],
            'bits', ctype='u32')
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

# The transcendental .approx forms, checked to the error bound the PTX
# ISA gives around the exact value (corpus.c's table, by the name in the
# bound column); rsqrt.approx.f64 within 1 ulp of the hardware's answer;
# rcp.approx.ftz.f64, which the ISA defines bit by bit, exactly.
for insn, bound in (('ex2.approx.ftz.f32', 'ex2'),
                    ('lg2.approx.ftz.f32', 'lg2'),
                    ('sin.approx.ftz.f32', 'sin'),
                    ('cos.approx.ftz.f32', 'cos'),
                    ('rsqrt.approx.ftz.f32', 'rsqrt'),
                    ('tanh.approx.f32', 'tanh'), ('ex2.approx.f32', 'ex2'),
                    ('rsqrt.approx.f64', 1), ('rcp.approx.ftz.f64', None)):
    t = insn.split('.')[-1]
    op1('float.ptx', cname(insn), t, insn, t, ulp=bound)
for insn in ('min.NaN.f32', 'max.NaN.f32'):
    op2('float.ptx', cname(insn), 'f32', insn, 'f32')
# 16-bit floats on the bit patterns of i16 (bits for pairs).
for insn in ('add.rn.f16', 'mul.rn.f16', 'add.rn.bf16'):
    op2('float.ptx', cname(insn), 'b16', insn, 'i16')
add('float.ptx', 'fma_rn_f16x2', 3, 'b32', 'b32',
    ['fma.rn.f16x2 %d, %a, %b, %c;'], 'bits')
add('convert.ptx', 'cvt_rn_f16_f32', 1, 'f32', 'b16',
    ['cvt.rn.f16.f32 %d, %a;'], 'f32')
add('convert.ptx', 'cvt_rz_f16_f32', 1, 'f32', 'b16',
    ['cvt.rz.f16.f32 %d, %a;'], 'f32')
add('convert.ptx', 'cvt_f32_f16', 1, 'b16', 'f32', ['cvt.f32.f16 %d, %a;'],
    'i16')
add('convert.ptx', 'cvt_rn_bf16_f32', 1, 'f32', 'b16',
    ['cvt.rn.bf16.f32 %d, %a;'], 'f32')
add('convert.ptx', 'cvt_f32_bf16', 1, 'b16', 'f32',
    ['cvt.f32.bf16 %d, %a;'], 'i16')
add('convert.ptx', 'cvt_rn_f16x2_f32', 2, 'f32', 'b32',
    ['cvt.rn.f16x2.f32 %d, %a, %b;'], 'f32')


# 16-bit floats against the hardware, in half.ptx: edge sets of both
# formats (zeros, ones, values whose results round or tie, the largest
# finite value, the smallest normal and the subnormals, infinities, NaNs
# of both signs with payloads, signalling ones), pairs of them, and
# integers that round across the f16 range.
def f16(x):
    return struct.unpack('<H', struct.pack('<e', x))[0]


def bf16(x):
    return f32(x) >> 16	# only values bf16 holds exactly


SETS['h16'] = (2, [f16(x) for x in (
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 127.5, -128.5,
    255.0, 2048.0, 2050.0, 65504.0, -65504.0, 1.0 / 3)] + [
    0x3c01, 0x3bff, 0x0400, 0x8400, 0x03ff, 0x0001, 0x8001, 0x0200, 0x7c00,
    0xfc00, 0x7e00, 0x7c01, 0xfe01, 0x7fff, 0x1400, 0x5bff])
SETS['bh16'] = (2, [bf16(x) for x in (
    0.0, -0.0, 1.0, -1.0, 0.5, 1.5, -1.5, 2.5, -2.5, 127.5, 256.0,
    2.0 ** 24, 2.0 ** 31, -2.0 ** 31, 2.0 ** 63, 2.0 ** 64)] + [
    0x3f81, 0x3f7f, 0x3eab, 0x7f7f, 0xff7f, 0x0080, 0x8080, 0x007f, 0x0001,
    0x8001, 0x0040, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffc1, 0x7fff])


def pairs(s):
    """Pairs of a 16-bit set, each half a different edge value."""
    v = SETS[s][1]
    n = len(v)
    return (4, [v[i] | v[(i * 5 + 3) % n] << 16 for i in range(n)])


SETS['h16x2'] = pairs('h16')
SETS['bh16x2'] = pairs('bh16')
# Integers to 16-bit floats: ties of f16 (2049, 2051) and of bf16 (257,
# 259, 65664), the ends of f16's range (65519 rounds down, 65520 up to
# infinity), the ends of the 32-bit ranges.
SETS['ihalf'] = (4, [0, 1, 2, 0xffffffff, 2047, 2049, 2050, 2051, 4097,
                     65504, 65519, 65520, 65535, 65536, 0xffff0010,
                     0xffff0011, 257, 259, 65664, 0x7fffffff, 0x80000000,
                     0x80000001, 0x01000001])
# f32 edges for cvt to 16-bit floats: values that tie, round to the
# largest finite value or past it, to f16's subnormals, to zero.
SETS['f32h'] = (4, [f32(x) for x in (
    0.0, -0.0, 1.0, -1.0, 65504.0, 65519.0, 65520.0, -65520.0, 65536.0,
    2049.0, 2051.0, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -26, 2.0 ** -14,
    2.0 ** -14 - 2.0 ** -25, 1.0 / 3, -1.0 / 3, 0.5)] + [
    0x3f808000, 0x3f818000, 0x3f808001, 0x7f7fffff, 0xff7fffff, 0x7f7f8000,
    0x00800000, 0x807fffff, 0x00000001, 0x7f800000, 0xff800000, 0x7fc00000,
    0x7f800001, 0xffc00001, 0x7fffffff])
H = 'half.ptx'
for t, s, sp in (('f16', 'h16', 'h16x2'), ('bf16', 'bh16', 'bh16x2')):
    ftzs = ('', '.ftz') if t == 'f16' else ('',)
    for z in ftzs:
        for o in ('add', 'sub', 'mul'):
            for v, ss, rt in (('', s, 'b16'), ('x2', sp, 'b32')):
                insn = '%s.rn%s.%s%s' % (o, z, t, v)
                if insn in ('add.rn.f16', 'mul.rn.f16', 'add.rn.bf16'):
                    continue	# float.ptx has them
                op2(H, cname(insn), rt, insn, ss)
        for m in ('', '.relu') + (('.sat',) if t == 'f16' else ()):
            for v, ss, rt in (('', s, 'b16'), ('x2', sp, 'b32')):
                insn = 'fma.rn%s%s.%s%s' % (z, m, t, v)
                if insn == 'fma.rn.f16x2':
                    continue
                add(H, cname(insn), 3, rt, rt, [insn + ' %d, %a, %b, %c;'],
                    ss)
        for o in ('min', 'max', 'min.NaN', 'max.NaN'):
            for v, ss, rt in (('', s, 'b16'), ('x2', sp, 'b32')):
                insn = '%s%s.%s%s' % (o.split('.')[0], z + (
                    '.NaN' if '.NaN' in o else ''), t, v)
                op2(H, cname(insn), rt, insn, ss)
        for o in ('neg', 'abs'):
            for v, ss, rt in (('', s, 'b16'), ('x2', sp, 'b32')):
                insn = '%s%s.%s%s' % (o, z, t, v)
                op1(H, cname(insn), rt, insn, ss)
        for c in ('eq', 'ne', 'lt', 'le', 'gt', 'ge', 'equ', 'neu', 'ltu',
                  'leu', 'gtu', 'geu', 'num', 'nan'):
            if z and c not in ('lt', 'eq', 'geu'):
                continue
            insn = 'setp.%s%s.%s' % (c, z, t)
            add(H, cname(insn), 2, 'b16', 'u32',
                [insn + ' %p2, %a, %b;', 'selp.u32 %d, 1, 0, %p2;'], s)
    # A pair sets p from the low halves, q from the high: p + 2q, and
    # combined with a predicate (the low half of a below 1).
    for c in ('lt', 'equ', 'nan', 'ge') + (('lt.ftz',) if t == 'f16' else ()):
        for aop in ('', '.and', '.xor'):
            insn = 'setp.%s%s.%sx2' % (c, aop, t)
            body = ['setp.lt.u32 %p1, %a, 0x3c00;'] if aop else []
            body += [insn + ' %%p2|%%p3, %%a, %%b%s;' % (
                ', %p1' if aop else ''), 'selp.u32 %r9, 1, 0, %p2;',
                'selp.u32 %r10, 2, 0, %p3;', 'add.u32 %d, %r9, %r10;']
            add(H, cname(insn), 2, 'b32', 'u32', body, sp)

# Conversions to 16-bit floats: from f32 and f64 in every rounding mode,
# .relu, .satfinite, .sat, .ftz, between the two formats; from integers.
for t in ('f16', 'bf16'):
    for r in RND:
        for m in ('',) + (('.relu', '.satfinite', '.relu.satfinite')
                          if r in ('rn', 'rz') else ()):
            if (t, r, m) in (('f16', 'rn', ''), ('f16', 'rz', ''),
                             ('bf16', 'rn', '')):
                continue	# convert.ptx has them
            insn = 'cvt.%s%s.%s.f32' % (r, m, t)
            op1(H, cname(insn), 'f32', insn, 'f32h', dtype='b16')
        insn = 'cvt.%s.%s.f64' % (r, t)
        op1(H, cname(insn), 'f64', insn, 'cvtf64', dtype='b16')
    for m in ('.relu', '.satfinite', '.relu.satfinite'):
        insn = 'cvt.rn%s.%sx2.f32' % (m, t)
        add(H, cname(insn), 2, 'f32', 'b32', [insn + ' %d, %a, %b;'], 'f32s')
    insn = 'cvt.rz.%sx2.f32' % t
    add(H, cname(insn), 2, 'f32', 'b32', [insn + ' %d, %a, %b;'], 'f32s')
for insn in ('cvt.rn.ftz.f16.f32', 'cvt.rn.sat.f16.f32',
             'cvt.rn.ftz.sat.f16.f32'):
    op1(H, cname(insn), 'f32', insn, 'f32h', dtype='b16')
for insn, s in (('cvt.rn.f16.bf16', 'bh16'), ('cvt.rn.bf16.f16', 'h16'),
                ('cvt.rz.f16.bf16', 'bh16'), ('cvt.rm.bf16.f16', 'h16')):
    op1(H, cname(insn), 'b16', insn, s)
for t, s in (('f16', 'h16'), ('bf16', 'bh16')):
    for r in ('rni', 'rzi', 'rmi', 'rpi'):
        insn = 'cvt.%s.%s.%s' % (r, t, t)
        op1(H, cname(insn), 'b16', insn, s)
# From integers, every rounding mode.
for st, s in (('s32', 'ihalf'), ('u32', 'ihalf'), ('s64', 'ihalf'),
              ('u64', 'i64'), ('s16', 'i16'), ('u16', 'i16')):
    for t in ('f16', 'bf16'):
        for r in RND:
            insn = 'cvt.%s.%s.%s' % (r, t, st)
            op1(H, cname(insn), st, insn, s, dtype='b16')
# From 16-bit floats: to f32 and f64 (NaNs), .ftz, .sat; to integers.
for t, s in (('f16', 'h16'), ('bf16', 'bh16')):
    # ptxas takes .sat from f16 only, .ftz to f32 only.
    for insn, dt in (('cvt.f64.%s', 'f64'), ('cvt.ftz.f32.%s', 'f32'),
                     ('cvt.sat.f32.%s', 'f32')):
        if t == 'bf16' and '.sat' in insn:
            continue
        insn = insn % t
        op1(H, cname(insn), 'b16', insn, s, dtype=dt)
    for dt in ITYPES:
        for r in ('rni', 'rzi', 'rmi', 'rpi'):
            if dt in ('s8', 'u8', 's64') and r not in ('rni', 'rzi'):
                continue
            if t == 'bf16' and dt in ('s8', 'u8'):
                continue	# ptxas has no 8-bit integers from bf16
            insn = 'cvt.%s.%s.%s' % (r, dt, t)
            dreg = {'s8': 's16', 'u8': 'u16'}.get(dt, dt)
            op1(H, cname(insn), 'b16', insn, s, dtype=dreg)

# mov packing and unpacking through 16-bit registers of every type.
add(H, 'mov_pack_b16', 2, 'b16', 'b32', ['mov.b32 %d, {%a, %b};'], 'h16')
add(H, 'mov_unpack_f16', 1, 'b32', 'b32',
    ['mov.b32 {%h1, %h2}, %a;', 'neg.f16 %h1, %h1;',
     'mov.b32 %d, {%h2, %h1};'], 'h16x2', decl=['.reg .f16 %h<3>;'])
add(H, 'mov_unpack_bf16x2', 1, 'b32', 'b32',
    ['mov.b32 %x, %a;', 'mov.b32 {%h1, %h2}, %x;', 'abs.bf16 %h2, %h2;',
     'mov.b32 %x, {%h2, %h1};', 'mov.b32 %d, %x;'], 'bh16x2',
    decl=['.reg .b16 %h<3>;', '.reg .f16x2 %x;'])
add(H, 'mov_pack_b64', 1, 'b64', 'b64',
    ['mov.b64 {%h1, %h2, %h3, %h4}, %a;', 'mov.b64 %d, {%h4, %h2, %h3, %h1};'],
    'i64', decl=['.reg .b16 %h<5>;'])

# sin and cos beyond [-pi, pi], where the ISA states no bound.
SETS['trig'] = (4, [f32(x) for x in (
    3.0, 3.5, -3.5, 4.0, 6.0, 7.0, 10.0, -10.0, 100.0, 1000.0, 1e4, 1e5,
    1e6, 1e7, 2.0 ** 22, 2.0 ** 22 + 1, 2.0 ** 23, 2.0 ** 23 + 1, 2.0 ** 24,
    2.0 ** 24 + 2, 2.0 ** 30, 1e10, 2.0 ** 64, -2.0 ** 64, 100.5, 12.5,
    31.4159, 314.159, 3.1415927, 3.1415925, 6.2831855)] + [0x7f7fffff])
for insn, bound in (('sin.approx.f32', 'sin'), ('cos.approx.f32', 'cos'),
                    ('sin.approx.ftz.f32', 'sin'),
                    ('cos.approx.ftz.f32', 'cos')):
    op1(H, cname(insn) + '_big', 'f32', insn, 'trig', ulp=bound)


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
    ('bar_red', 'sync.ptx', 'bar_red', 'i32', '2x1x1', '128x1x1', 256,
     256 * 4, 4),
    ('bar_named', 'sync.ptx', 'named', 'i32', '1x1x1', '128x1x1', 128, 128,
     4),
    ('bar_arrive', 'sync.ptx', 'arrive', 'i32', '1x1x1', '64x1x1', 64, 64, 4),
    ('bar_diverge', 'sync.ptx', 'diverge', 'i32', '1x1x1', '64x1x1', 64, 64,
     4),
    ('msgpass', 'sync.ptx', 'msgpass', 'i32', '2x1x1', '32x1x1', 64, 16, 4),
]


def main():
    for f, ks in FILES.items():
        with open(os.path.join(here, f), 'w') as out:
            # .satfinite on 16-bit floats needs PTX ISA 8.1.
            head = HEAD.replace('8.0', '8.1') if f == H else HEAD
            out.write(head + '\n' + '\n'.join(ks))
    with open(os.path.join(here, 'cases.txt'), 'w') as out:
        out.write('# Generated by conformance/ptx/gen.py: the PTX corpus.\n'
                  '# set NAME BYTES VALUE...: an input set, in hex.\n'
                  '# case NAME FILE KERNEL SET GRID BLOCK TOTAL OUTN BYTES'
                  ' ARITY [BOUND]:\n# launch KERNEL of FILE on GRID blocks of'
                  ' BLOCK threads with (out, in,\n# n, total), in holding '
                  'SET, out (zeroed) OUTN elements of BYTES\n# bytes; '
                  'ARITY: the operands a thread reads from SET (0: a\n# '
                  'hand-written kernel); BOUND: an .approx case, the ulps of'
                  ' the\n# hardware\'s answer it is checked to, or the name'
                  ' of the PTX ISA\n# error bound (corpus.c).\n')
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
                ' %s' % ulp if ulp else ''))
        for name, f, k, s, g, b, total, outn, w in HAND:
            out.write('case %s %s %s %s %s %s %d %d %d 0\n' % (
                name, f, k, s, g, b, total, outn, w))


main()
