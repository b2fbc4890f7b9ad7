//===- Wgmma.cpp - warpgroup MMA: wgmma.mma_async and its groups ----------===//
//
// PTX ISA, "Asynchronous Warpgroup Level Matrix Multiply-Accumulate
// Instructions" (sm_90a): wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T
// (T = f16 or bf16) and m64nNk32.s32.s8.s8 (both operands K-major, s32
// sums exact and wrapping), issued by the 128 threads of a warpgroup (4
// consecutive warps, the first a multiple of 4) together, all with the same
// descriptors; wgmma.commit_group closes a group of the wgmmas issued
// since the last one; wgmma.wait_group N waits until at most N groups are
// pending.
//
// The model:
//  - Issue: a thread reaching the wgmma blocks (TS::Warpgroup); when none
//    of its warpgroup can run further, the 128 threads at the same wgmma
//    issue it together (a thread that exited or waits at another op is a
//    located error; one waiting on an mbarrier or a barrier may still come).
//    The descriptors and scale-d must be the same in every thread. The
//    accumulator inputs are captured, and each result register gets a tag
//    (Machine.h) naming the wgmma instead of a value.
//  - Completion happens at wgmma.wait_group: the first thread of the
//    warpgroup whose wait retires the group reads A and B from shared memory
//    then (a stage overwritten between issue and wait is read overwritten,
//    and the race checker sees the reads as async-proxy reads ordered after
//    what the warpgroup had seen at issue) and computes D in f32. A thread
//    acquires the wgmma's reads when its wait retires it.
//  - Register renames copy the tags: extractvalue, insert/extractelement,
//    shufflevector and branch arguments (kcc packs the accumulator into a
//    vector, carries it around a loop and unpacks it for the next, chained
//    wgmma, which takes the tags as its accumulator inputs). Any other
//    instruction that reads a tag gets the value if the wgmma was retired
//    and is reported otherwise:
//    PTX ISA, wgmma.wait_group: "Accessing the accumulator register ... of
//    a wgmma.mma_async instruction without first performing a
//    wgmma.wait_group instruction that waits on a wgmma-group including
//    that wgmma.mma_async instruction is undefined behavior." A wgmma never
//    retired by the CTA's end is reported too.
//
// Shared-memory operands: the 64-bit matrix descriptor is decoded by the
// target model (targets/WgmmaRules.h, decodeWgmmaDescriptor; PTX ISA
// "Matrix Descriptor Format": start address, leading and stride byte
// offsets, each encoded as (x & 0x3FFFF) >> 4, base offset, swizzle mode).
// The simulator models the 128-byte swizzle with base offset 0 (the
// repeating pattern starts on a 1024-byte boundary), the layouts kcc's
// lowering uses. Element (mn, k) of the 64 x 16 A slice (mn = m) or the
// N x 16 B slice (mn = n), with e-byte elements, is at
//   K-major (imm-trans 0):  start + (mn / 8) * SBO + (mn % 8) * 128 + k * e
//   MN-major (imm-trans 1): start + (mn / (128/e)) * LBO + (k / 8) * SBO
//                           + (k % 8) * 128 + (mn % (128/e)) * e
// followed by the 128-byte swizzle of the address, a ^ (((a >> 7) & 7) << 4).
// These are the canonical layouts of the PTX ISA, "Shared Memory Matrix
// Layout" (9.7.15.5.1.2: 128B swizzle atoms of 8 rows x 128 bytes) with its
// strides (9.7.15.5.1.2.1.1-2, in 16-byte units of the normalized matrix):
// K-major: LBO "not used, assumed to be 1" for swizzled layouts, SBO "the
// offset from the first 8 rows to the next 8 rows"; MN-major swizzled: LBO
// the offset from the first (swizzle-byte-size/16) rows to the next, i.e.
// between 128-byte atoms along M/N, SBO the offset from the first 8 columns
// (K) to the next. In CUTLASS's notation (cute/atom/mma_traits_sm90_gmma.hpp,
// make_gmma_desc; in elements, with T = 16 / e):
//   K-major  B128: Swizzle<3,4,3> o ((8,m),(T,2)):((8T,SBO),(1,T))
//   MN-major B128: Swizzle<3,4,3> o ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))
// Swizzle<3,4,3> XORs address bits 4-6 with bits 7-9: the formula above.
//
// D fragment (PTX ISA, "Register Fragments", m64nNk16 f32 accumulator):
// register i (i < N/2) of lane l of warp w of the warpgroup holds
// D[16w + l/4 + 8((i/2) % 2)][8(i/4) + 2(l % 4) + i % 2].
// f16/bf16 products are exact in f32; the 16 products are summed in k order
// in f32 (the tensor core's own order and rounding are not modelled: results
// agree within the difftest's tolerances).
//
//===----------------------------------------------------------------------===//
#include "sim/Float.h"
#include "sim/Machine.h"

#include "llvm/Support/FormatVariadic.h"

using namespace kcc::sim;
using namespace kcc::sim::detail;

namespace {
constexpr unsigned kWarpgroup = 128;

const char *swizzleName(kcc::WgmmaSwizzle s) {
  switch (s) {
  case kcc::WgmmaSwizzle::None:
    return "no swizzle";
  case kcc::WgmmaSwizzle::B128:
    return "the 128-byte swizzle";
  case kcc::WgmmaSwizzle::B64:
    return "the 64-byte swizzle";
  case kcc::WgmmaSwizzle::B32:
    return "the 32-byte swizzle";
  }
  return "?";
}
} // namespace

uint64_t kcc::sim::detail::swizzledOperandOffset(uint64_t start, uint64_t lbo,
                                                 uint64_t sbo, bool mnMajor,
                                                 unsigned mn, unsigned k,
                                                 unsigned eb) {
  uint64_t addr = start;
  unsigned perSpan = 128 / eb;
  if (!mnMajor)
    addr += (mn / 8) * sbo + (mn % 8) * 128 + k * eb;
  else
    addr += (mn / perSpan) * lbo + (k / 8) * sbo + (k % 8) * 128 +
            (mn % perSpan) * eb;
  return addr ^ (((addr >> 7) & 7) << 4); // Swizzle<3,4,3>
}

std::string Machine::describeWarpgroup(unsigned wg) const {
  return llvm::formatv("warpgroup {0} (threads {1}-{2}) of CTA ({3}, {4}, {5})",
                       wg, wg * kWarpgroup, wg * kWarpgroup + kWarpgroup - 1,
                       ctaId[0], ctaId[1], ctaId[2])
      .str();
}

bool Machine::tryWarpgroup(unsigned wg, bool &fired) {
  fired = false;
  if (!prog.hasWgmma)
    return true;
  unsigned first = wg * kWarpgroup;
  unsigned last = std::min(numThreads, first + kWarpgroup);
  const Thread *at = nullptr;
  for (unsigned i = first; i < last; ++i) {
    const Thread &o = threads[i];
    if (o.state == TS::Ready)
      return true; // it may yet arrive
    if (o.state == TS::Warpgroup && !at)
      at = &o;
  }
  if (!at)
    return true;
  uint32_t pc = at->pc;
  const Inst &in = prog.code[pc];
  if (last - first < kWarpgroup) {
    setFault(in.op,
             llvm::formatv("wgmma.mma_async by {0}: it needs all 128 threads "
                           "of {1}, but the CTA has {2} threads",
                           threadName(*at), describeWarpgroup(wg), numThreads));
    return false;
  }
  for (unsigned i = first; i < last; ++i) {
    const Thread &o = threads[i];
    if (o.state == TS::Warpgroup && o.pc == pc)
      continue;
    // An mbarrier phase or a barrier may still release it; if nothing
    // does, the deadlock report names both.
    if (o.state == TS::MBarWait || o.state == TS::Barrier ||
        o.state == TS::ClusterWait)
      return true;
    bool gone = o.state == TS::Exited;
    setFault(in.op,
             llvm::formatv("wgmma.mma_async by {0} waits for {1}, which {2}: "
                           "all 128 threads of {3} must execute it together "
                           "(.sync.aligned)",
                           threadName(*at), threadName(o),
                           gone ? "has exited" : "waits at another op",
                           describeWarpgroup(wg)));
    fault->notes.push_back({Report::Note,
                            gone ? "the thread exited here" : "the other op",
                            locOf(prog.code[gone ? o.exitPc : o.pc].op)});
    return false;
  }
  fired = true;
  return fireWgmma(wg, pc);
}

bool Machine::fireWgmma(unsigned wg, uint32_t pc) {
  const Inst &in = prog.code[pc];
  const uint32_t *x = prog.aux.data() + in.aux;
  unsigned first = wg * kWarpgroup, regs = x[0] / 2;
  bool regA = x[1] & WgmmaAux::RegA;
  Thread &t0 = threads[first];
  auto scaleOf = [&](const Thread &t) {
    return uint32_t(t.regs[in.c]) != 0;
  };
  // Every thread passes the same descriptors and scale-d.
  for (unsigned i = first + 1; i < first + kWarpgroup; ++i) {
    const Thread &o = threads[i];
    const char *what = nullptr;
    uint64_t mine = 0, theirs = 0;
    if (!regA && o.regs[in.a] != t0.regs[in.a])
      what = "A descriptor", mine = o.regs[in.a], theirs = t0.regs[in.a];
    else if (o.regs[in.b] != t0.regs[in.b])
      what = "B descriptor", mine = o.regs[in.b], theirs = t0.regs[in.b];
    else if (scaleOf(o) != scaleOf(t0))
      what = "scale-d", mine = scaleOf(o), theirs = scaleOf(t0);
    if (what) {
      setFault(in.op,
               llvm::formatv("wgmma.mma_async: {0} passes {1} {2:x} but {3} "
                             "passes {4:x}; every thread of {5} must pass the "
                             "same value",
                             threadName(o), what, mine, threadName(t0), theirs,
                             describeWarpgroup(wg)));
      return false;
    }
  }
  WgmmaRun r;
  r.op = in.op, r.pc = pc, r.warpgroup = wg;
  r.n = x[0], r.flags = x[1], r.scaleD = scaleOf(t0);
  r.descA = regA ? 0 : t0.regs[in.a], r.descB = t0.regs[in.b];
  for (auto [desc, fields, name] :
       {std::tuple(r.descA, &r.a, "A"), std::tuple(r.descB, &r.b, "B")}) {
    if (regA && fields == &r.a)
      continue;
    llvm::Expected<kcc::WgmmaDescriptorFields> f =
        kcc::decodeWgmmaDescriptor(desc);
    if (!f) {
      setFault(in.op, llvm::formatv("wgmma.mma_async of {0}: the {1} "
                                    "descriptor {2:x16} is invalid: {3}",
                                    describeWarpgroup(wg), name, desc,
                                    llvm::toString(f.takeError())));
      return false;
    }
    if (f->swizzle != kcc::WgmmaSwizzle::B128 || f->baseOffset != 0) {
      setFault(in.op,
               llvm::formatv("wgmma.mma_async of {0}: the {1} descriptor "
                             "{2:x16} uses {3} with base offset {4}; the "
                             "simulator models the 128-byte swizzle with base "
                             "offset 0 only",
                             describeWarpgroup(wg), name, desc,
                             swizzleName(f->swizzle), unsigned(f->baseOffset)));
      return false;
    }
    *fields = *f;
  }
  uint32_t index = wgmmas.size();
  r.field.resize(regs);
  r.acc.resize(size_t(kWarpgroup) * regs);
  for (unsigned i = 0; i < regs; ++i)
    r.field[i] = x[2 + 2 * i];
  // The copy record: its reads are ordered after what every issuing thread
  // had seen; a thread's clock is bumped so that its later accesses are not.
  newAsyncSyncId();
  AsyncCopy c;
  c.wgmma = true;
  c.wgmmaIndex = index;
  c.load = false;
  c.op = in.op;
  c.issuer = first;
  c.syncId = idBase + numThreads + copies.size();
  c.seenGen = ~0u;
  Clock own;
  if (regA)
    r.aRegs.resize(size_t(kWarpgroup) * 4);
  for (unsigned i = first; i < first + kWarpgroup; ++i) {
    Thread &o = threads[i];
    for (unsigned k = 0; k < regs; ++k) {
      uint32_t s = x[3 + 2 * k];
      r.acc[size_t(i - first) * regs + k] = o.regs[s];
    }
    // The A registers are read at issue (they must not change until the
    // group retires; kcc's lowering does not touch them).
    for (unsigned j = 0; regA && j < 4; ++j)
      r.aRegs[size_t(i - first) * 4 + j] =
          uint32_t(o.regs[x[2 + 2 * regs + j]]);
    joinInto(c.seen, o.acquired);
    own.push_back({o.sid, o.clock});
    ++o.clock;
    c.seenGen = std::min(c.seenGen, o.gen);
  }
  joinInto(c.seen, own);
  r.copy = copies.size();
  copies.push_back(std::move(c));
  wgmmas.push_back(std::move(r));
  for (unsigned i = first; i < first + kWarpgroup; ++i) {
    Thread &o = threads[i];
    for (unsigned k = 0; k < regs; ++k)
      o.regs[in.res + k] = wgmmaTag(index, k);
    o.wgOpen.push_back(index);
    ++o.pc;
    makeReady(o);
  }
  ++result.stats.collectives;
  return true;
}

bool Machine::completeWgmma(uint32_t index) {
  if (wgmmas[index].done)
    return true;
  // Accumulators chained from earlier wgmmas (the same registers on the
  // GPU): those complete first.
  for (uint64_t v : wgmmas[index].acc)
    if (isWgmmaTag(v)) {
      uint32_t j = wgmmaTagIndex(v);
      if (j != index && !wgmmas[j].done && !completeWgmma(j))
        return false;
    }
  WgmmaRun &r = wgmmas[index];
  const AsyncCopy &c = copies[r.copy];
  bool bf16 = r.flags & WgmmaAux::BF16, s8 = r.flags & WgmmaAux::S8;
  bool f8 = r.flags & WgmmaAux::F8A;
  // K per instruction: 32 bytes of each operand row.
  unsigned n = r.n, regs = n / 2, eb = s8 || f8 ? 1 : 2, kk = 32 / eb;
  // Operand element (mn, k) through the descriptor, the canonical layout
  // and the swizzle (see the header).
  auto read = [&](const kcc::WgmmaDescriptorFields &f, bool mnMajor,
                  unsigned mn, unsigned k, const char *name,
                  float &out) -> bool {
    uint64_t addr =
        swizzledOperandOffset(f.startAddress, f.leadingByteOffset,
                              f.strideByteOffset, mnMajor, mn, k, eb);
    if (addr + eb > prog.sharedBytes) {
      setFault(r.op,
               llvm::formatv("wgmma.mma_async of {0} reads {1}'s element "
                             "({2}, k {3}) at shared offset {4} (start {5}, "
                             "LBO {6}, SBO {7}, {8}-major), beyond the "
                             "kernel's {9} bytes of shared memory",
                             describeWarpgroup(r.warpgroup), name, mn, k, addr,
                             f.startAddress, f.leadingByteOffset,
                             f.strideByteOffset, mnMajor ? "MN" : "K",
                             prog.sharedBytes));
      return false;
    }
    if (!sharedAccess(nullptr, r.op, addr, eb, /*store=*/false, c.syncId))
      return false;
    if (s8) { // exact in f32 and in the i32 sums below
      out = float(int8_t(shared[addr]));
      return true;
    }
    if (f8) { // exact in f32, as are the products of two
      bool e5 = r.flags & (*name == 'A' ? WgmmaAux::E5M2A : WgmmaAux::E5M2B);
      out = float(float8ToDouble(shared[addr], e5 ? F8::E5M2 : F8::E4M3));
      return true;
    }
    uint16_t h;
    std::memcpy(&h, shared.data() + addr, 2);
    out = bf16 ? bf16ToFloat(h) : halfToFloat(h);
    return true;
  };
  std::vector<float> a(64 * kk), b(size_t(n) * kk);
  float signA = (r.flags & WgmmaAux::NegA) ? -1.f : 1.f;
  float signB = (r.flags & WgmmaAux::NegB) ? -1.f : 1.f;
  if (r.flags & WgmmaAux::RegA) {
    // Register j of lane l of warp w holds A[16w + l/4 + 8(j % 2)]
    // [8(j / 2) + 2(l % 4) + h] in its half h (low half first): the
    // m16n8k16 A fragment per warp, PTX ISA "Register Fragments" (wgmma
    // .m64nNk16, A in registers).
    for (unsigned t = 0; t < kWarpgroup; ++t)
      for (unsigned j = 0; j < 4; ++j)
        for (unsigned h = 0; h < 2; ++h) {
          unsigned warp = t / 32, lane = t % 32;
          unsigned m = 16 * warp + lane / 4 + 8 * (j % 2);
          unsigned k = 8 * (j / 2) + 2 * (lane % 4) + h;
          uint16_t bits = uint16_t(r.aRegs[t * 4 + j] >> (16 * h));
          a[m * 16 + k] =
              signA * (bf16 ? bf16ToFloat(bits) : halfToFloat(bits));
        }
  } else {
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned k = 0; k < kk; ++k) {
        if (!read(r.a, r.flags & WgmmaAux::TransA, m, k, "A", a[m * kk + k]))
          return false;
        a[m * kk + k] *= signA;
      }
  }
  for (unsigned j = 0; j < n; ++j)
    for (unsigned k = 0; k < kk; ++k) {
      if (!read(r.b, r.flags & WgmmaAux::TransB, j, k, "B", b[k * n + j]))
        return false;
      b[k * n + j] *= signB;
    }
  r.result.assign(size_t(kWarpgroup) * regs, 0);
  for (unsigned t = 0; t < kWarpgroup; ++t) {
    unsigned warp = t / 32, lane = t % 32;
    for (unsigned i = 0; i < regs; ++i) {
      unsigned row = 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
      unsigned col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
      uint64_t v = 0; // the accumulator's bits (f32, or s32 for s8)
      if (r.scaleD) {
        v = r.acc[size_t(t) * regs + i];
        if (isWgmmaTag(v)) {
          const WgmmaRun &from = wgmmas[wgmmaTagIndex(v)];
          size_t at = size_t(t) * (from.n / 2) + wgmmaTagField(v);
          // The group this accumulator comes from faulted or never ran.
          if (!from.done || at >= from.result.size()) {
            setFault(r.op, "wgmma.mma_async of " +
                               describeWarpgroup(r.warpgroup) +
                               " accumulates onto a wgmma result that was "
                               "never computed (an earlier group failed)");
            return false;
          }
          v = from.result[at];
        }
      }
      if (s8) {
        // s32 sums of s8 products, wrapping as the hardware's adds do.
        uint32_t sum = uint32_t(v);
        for (unsigned k = 0; k < kk; ++k)
          sum += uint32_t(int32_t(a[row * kk + k]) * int32_t(b[k * n + col]));
        r.result[size_t(t) * regs + r.field[i]] = sum;
        continue;
      }
      float d = asF32(v);
      for (unsigned k = 0; k < kk; ++k)
        d += a[row * kk + k] * b[k * n + col];
      r.result[size_t(t) * regs + r.field[i]] = uint32_t(bitsOf(d));
    }
  }
  r.done = true;
  copies[r.copy].done = true;
  return true;
}

Machine::Step Machine::wgmmaGroupOp(Thread &t, const Inst &in) {
  if (in.opc == Opc::WgmmaCommit) {
    t.wgGroups.push_back(std::move(t.wgOpen));
    t.wgOpen.clear();
    return Step::Continue;
  }
  // wgmma.wait_group N: the oldest groups complete until N are pending.
  while (t.wgGroups.size() > in.a) {
    std::vector<uint32_t> group = std::move(t.wgGroups.front());
    t.wgGroups.erase(t.wgGroups.begin());
    for (uint32_t w : group) {
      if (!completeWgmma(w))
        return Step::Fault;
      joinInto(t.acquired, Clock{{copies[wgmmas[w].copy].syncId, 1}});
    }
  }
  return Step::Continue;
}

bool Machine::checkWgmmaAccRead(Thread &t, uint32_t pc) {
  auto it = llvm::lower_bound(
      prog.accReads, pc,
      [](const Program::AccRead &e, uint32_t v) { return e.first < v; });
  if (it == prog.accReads.end() || it->first != pc)
    return true;
  for (auto [slot, lanes] : it->second)
    for (uint32_t l = 0; l < lanes; ++l) {
      uint64_t &v = t.regs[slot + l];
      if (!isWgmmaTag(v))
        continue;
      const WgmmaRun &w = wgmmas[wgmmaTagIndex(v)];
      if (w.done) {
        unsigned inGroup = t.tid - w.warpgroup * kWarpgroup;
        size_t at = size_t(inGroup) * (w.n / 2) + wgmmaTagField(v);
        if (at < w.result.size()) {
          v = w.result[at];
          continue;
        }
      }
      setFault(prog.code[pc].op,
               llvm::formatv("{0} reads result register {1} of a "
                             "wgmma.mma_async of {2} that no "
                             "wgmma.wait_group has retired: the accumulator "
                             "is undefined until then",
                             threadName(t), wgmmaTagField(v),
                             describeWarpgroup(w.warpgroup)));
      fault->notes.push_back(
          {Report::Note, "the wgmma.mma_async", locOf(w.op)});
      return false;
    }
  return true;
}

bool Machine::checkWgmmasRetired() {
  for (const WgmmaRun &w : wgmmas)
    if (!w.done) {
      setFault(w.op, llvm::formatv("the wgmma.mma_async of {0} was never "
                                   "retired: no wgmma.commit_group and "
                                   "wgmma.wait_group waited for it before the "
                                   "threads exited",
                                   describeWarpgroup(w.warpgroup)));
      return false;
    }
  return true;
}
