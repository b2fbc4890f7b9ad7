//===- PtxInlineAsm.h - the inline PTX kcc emits, as templates --*- C++ -*-===//
//
// Where the NVVM dialect has no op for an instruction (wgmma.mma_async with
// descriptors, tcgen05), kcc's lowering emits inline PTX. This table is the
// one place those forms are written: the lowering (backends/nvidia) formats
// them and the simulator's decoder (sim/DecodeTargetOps.cpp) matches them,
// so the two cannot drift apart. A template is literal text with fields:
//   <name>       a decimal integer (optionally negative)
//   <name:word>  letters, digits and '_' (a PTX type such as bf16)
//   <name:regs>  a list of asm operands "$a, $b, ..."
// A field named twice takes the same value at both places.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_TARGETS_PTXINLINEASM_H
#define KCC_TARGETS_PTXINLINEASM_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kcc::ptx {

struct AsmTemplate {
  llvm::StringLiteral name; // for messages
  llvm::StringLiteral text;
};

/// The values of a template's fields.
struct AsmFields {
  llvm::StringMap<int64_t> ints;
  llvm::StringMap<std::string> words;
  llvm::StringMap<std::vector<unsigned>> regs;

  AsmFields &set(llvm::StringRef name, int64_t v) {
    ints[name] = v;
    return *this;
  }
  AsmFields &set(llvm::StringRef name, llvm::StringRef v) {
    words[name] = v.str();
    return *this;
  }
  AsmFields &set(llvm::StringRef name, std::vector<unsigned> v) {
    regs[name] = std::move(v);
    return *this;
  }
  /// $first, ..., $(first + count - 1).
  AsmFields &setRange(llvm::StringRef name, unsigned first, unsigned count);
};

/// The text of `t` with `fields` filled in (every field must be given).
std::string format(const AsmTemplate &t, const AsmFields &fields);

/// The fields of `text` if it is an instance of `t`; otherwise nullopt and,
/// where `why` is given, where the text departs from the template.
std::optional<AsmFields> match(const AsmTemplate &t, llvm::StringRef text,
                               std::string *why = nullptr);

//===----------------------------------------------------------------------===//
// The table
//===----------------------------------------------------------------------===//

/// `wgmma.fence` at the head of a group's first wgmma asm (before the
/// template's text): the copies LLVM makes into the asm's tied accumulator
/// registers (a constant-zero accumulator's, say) then come before the fence,
/// where ptxas wants every register a wgmma reads defined (else it injects a
/// warpgroup.arrive, C7519).
inline constexpr const char *kWgmmaFencePrefix = "wgmma.fence.sync.aligned;\n";

/// wgmma.mma_async on shared-memory descriptors, f32 accumulator: D =
/// (scale != 0 ? D : 0) + A * B; <sa>/<sb> are imm-scale-a/b (1 or -1),
/// <ta>/<tb> imm-trans-a/b (0 or 1). PTX ISA, "wgmma.mma_async".
inline constexpr AsmTemplate kWgmmaMma{
    "wgmma.mma_async",
    "{\n.reg .pred p;\nsetp.ne.b32 p, $<scale>, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n<n>k16.f32.<elem:word>.<elem:word> "
    "{<d:regs>}, $<a>, $<b>, p, <sa>, <sb>, <ta>, <tb>;\n}"};

/// wgmma.mma_async on 8-bit integers, s32 accumulator: D = (scale != 0 ?
/// D : 0) + A * B with K = 32 per instruction; no imm-scale or imm-trans
/// (both operands K-major). PTX ISA, "wgmma.mma_async" (.s8/.u8).
inline constexpr AsmTemplate kWgmmaMmaInt8{
    "wgmma.mma_async (8-bit integers)",
    "{\n.reg .pred p;\nsetp.ne.b32 p, $<scale>, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n<n>k32.s32.<elem:word>.<elem:word> "
    "{<d:regs>}, $<a>, $<b>, p;\n}"};

/// wgmma.mma_async on 8-bit floats (.e4m3/.e5m2, each operand its own),
/// f32 accumulator, K = 32 per instruction: imm-scale-a/b but no imm-trans
/// (both operands K-major). PTX ISA, "wgmma.mma_async" (.e4m3/.e5m2).
inline constexpr AsmTemplate kWgmmaMmaFp8{
    "wgmma.mma_async (8-bit floats)",
    "{\n.reg .pred p;\nsetp.ne.b32 p, $<scale>, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n<n>k32.f32.<ea:word>.<eb:word> "
    "{<d:regs>}, $<a>, $<b>, p, <sa>, <sb>;\n}"};

/// The register-A form: A is <a:regs>, four f16x2 / bf16x2 registers of
/// the 64 x 16 slice (the accumulator's fragment, PTX ISA "Register
/// Fragments" for wgmma .m64nNk16 A), B a shared-memory descriptor;
/// <tb> is imm-trans-b (there is no imm-trans-a).
inline constexpr AsmTemplate kWgmmaMmaRegA{
    "wgmma.mma_async (A in registers)",
    "{\n.reg .pred p;\nsetp.ne.b32 p, $<scale>, 0;\n"
    "wgmma.mma_async.sync.aligned.m64n<n>k16.f32.<elem:word>.<elem:word> "
    "{<d:regs>}, {<a:regs>}, $<b>, p, <sa>, <sb>, <tb>;\n}"};

/// The tcgen05 fences around a thread barrier.
inline constexpr AsmTemplate kTcgen05FenceBefore{
    "tcgen05.fence::before_thread_sync", "tcgen05.fence::before_thread_sync;"};
inline constexpr AsmTemplate kTcgen05FenceAfter{
    "tcgen05.fence::after_thread_sync", "tcgen05.fence::after_thread_sync;"};

/// Warp 0 allocates <cols> TMEM columns, writing the address to $0 (shared).
inline constexpr AsmTemplate kTcgen05Alloc{
    "tcgen05.alloc",
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], <cols>;"};
/// The same, then giving up the right to allocate more.
inline constexpr AsmTemplate kTcgen05AllocRelinquish{
    "tcgen05.alloc + relinquish_alloc_permit",
    "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], <cols>;\n"
    "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;"};
inline constexpr AsmTemplate kTcgen05Dealloc{
    "tcgen05.dealloc",
    "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, <cols>;"};

/// D[$0] (TMEM) = ($4 != 0 ? D : 0) + A($1) * B($2), instruction
/// descriptor $3.
inline constexpr AsmTemplate kTcgen05Mma{
    "tcgen05.mma",
    "{\n.reg .pred p;\nsetp.ne.b32 p, $4, 0;\n"
    "tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $2, $3, p;\n}"};
/// The same for signed 8-bit A and B with an s32 D (kind::i8).
inline constexpr AsmTemplate kTcgen05MmaI8{
    "tcgen05.mma kind::i8",
    "{\n.reg .pred p;\nsetp.ne.b32 p, $4, 0;\n"
    "tcgen05.mma.cta_group::1.kind::i8 [$0], $1, $2, $3, p;\n}"};
/// The same for 8-bit float A and B (e4m3 or e5m2, each its own, named by
/// the instruction descriptor) with an f32 D (kind::f8f6f4).
inline constexpr AsmTemplate kTcgen05MmaF8F6F4{
    "tcgen05.mma kind::f8f6f4",
    "{\n.reg .pred p;\nsetp.ne.b32 p, $4, 0;\n"
    "tcgen05.mma.cta_group::1.kind::f8f6f4 [$0], $1, $2, $3, p;\n}"};
/// Arrives on the mbarrier at $0 when the issued tcgen05.mma retire.
inline constexpr AsmTemplate kTcgen05Commit{
    "tcgen05.commit",
    "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 "
    "[$0];"};
/// 32 lanes x 32 columns of 32 bits from TMEM address $<addr>.
inline constexpr AsmTemplate kTcgen05Ld32x32bX32{
    "tcgen05.ld.32x32b.x32",
    "tcgen05.ld.sync.aligned.32x32b.x32.b32 {<d:regs>}, [$<addr>];"};
/// Waits for the warp's tcgen05.ld; its outputs are tied to its inputs.
inline constexpr AsmTemplate kTcgen05WaitLd{"tcgen05.wait::ld",
                                            "tcgen05.wait::ld.sync.aligned;"};

/// No instruction: outputs tied to inputs keep registers in place across it
/// (the accumulator fence after wgmma.wait_group).
inline constexpr AsmTemplate kOperandFence{"operand fence", ""};

} // namespace kcc::ptx

#endif // KCC_TARGETS_PTXINLINEASM_H
