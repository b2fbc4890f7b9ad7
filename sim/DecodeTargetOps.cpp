//===- DecodeTargetOps.cpp - NVVM, ROCDL and inline asm decoding ----------===//
//
// The Decoder (Decoder.h) for the target ops of kcc's lowering: thread and
// block ids, barriers, lane exchanges, ldmatrix, mma.sync and MFMA, mbarriers,
// TMA and async copies, wgmma groups and proxy fences; and the inline assembly
// kcc emits, matched by its text: wgmma.mma_async (with the accumulators it
// leaves in flight), tcgen05 and operand fences.
//
//===----------------------------------------------------------------------===//
#include "sim/Decoder.h"

#include "targets/PtxInlineAsm.h"
#include "targets/WgmmaRules.h"

#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kcc::sim;
using namespace kcc::sim::detail;

//===----------------------------------------------------------------------===//
// The inline PTX of a warpgroup MMA: ptx::kWgmmaMma (targets/PtxInlineAsm.h),
// the template kcc's lowering formats. Anything else is refused.
//===----------------------------------------------------------------------===//

bool kcc::sim::detail::isWgmmaAsm(LLVM::InlineAsmOp op) {
  return op.getAsmString().contains("wgmma.mma_async");
}

namespace {

struct WgmmaAsm {
  unsigned n = 0;
  uint32_t flags = 0;      // WgmmaAux flags
  std::vector<unsigned> d; // asm operand number of each D register
  unsigned descA = 0, descB = 0;
  std::vector<unsigned> aRegs; // the register-A form: A's 4 operands
  unsigned scaleOperand = 0;   // $K of the scale-d predicate
};

std::optional<WgmmaAsm> parseWgmmaAsm(StringRef text, std::string &why) {
  // A group's leading wgmma.fence orders register accesses, which the
  // simulator checks itself (as for NVVM's wgmma.fence op).
  text = text.trim();
  text.consume_front(kcc::ptx::kWgmmaFencePrefix);
  text = text.trim();
  std::optional<kcc::ptx::AsmFields> f =
      kcc::ptx::match(kcc::ptx::kWgmmaMma, text, &why);
  bool regA = false, int8 = false, f8 = false;
  if (!f) {
    std::string whyOther;
    f = kcc::ptx::match(kcc::ptx::kWgmmaMmaRegA, text, &whyOther);
    regA = bool(f);
    if (!f) {
      f = kcc::ptx::match(kcc::ptx::kWgmmaMmaInt8, text, &whyOther);
      int8 = bool(f);
    }
    if (!f) {
      f = kcc::ptx::match(kcc::ptx::kWgmmaMmaFp8, text, &whyOther);
      f8 = bool(f);
    }
    if (!f)
      return std::nullopt;
    // None of these forms has imm-trans-a; the 8-bit ones no imm-trans-b,
    // the integer one no scales.
    f->ints["ta"] = 0;
    if (int8)
      f->ints["sa"] = f->ints["sb"] = 1;
    if (int8 || f8)
      f->ints["tb"] = 0;
  }
  WgmmaAsm w;
  StringRef elem = f8 ? f->words["ea"] : f->words["elem"];
  StringRef bElem = f8 ? f->words["eb"] : elem;
  int64_t n = f->ints["n"];
  auto isF8 = [](StringRef e) { return e == "e4m3" || e == "e5m2"; };
  if (f8     ? !isF8(elem) || !isF8(bElem)
      : int8 ? elem != "s8"
             : elem != "f16" && elem != "bf16") {
    why = "'." + elem.str() + "' multiplicands in the " +
          (f8     ? "8-bit float"
           : int8 ? "integer"
                  : "16-bit") +
          " form: the simulator implements wgmma.mma_async with .f16 or "
          ".bf16 multiplicands (k16), .e4m3 or .e5m2 (k32, no imm-trans) and "
          ".s8 (k32, s32 accumulator)";
    return std::nullopt;
  }
  if (!kcc::isLegalWgmmaShape(int8             ? kcc::WgmmaType::S8
                              : f8             ? kcc::WgmmaType::E4M3
                              : elem == "bf16" ? kcc::WgmmaType::BF16
                                               : kcc::WgmmaType::F16,
                              64, n, int8 || f8 ? 32 : 16, &why))
    return std::nullopt;
  w.n = unsigned(n);
  if (elem == "bf16")
    w.flags |= WgmmaAux::BF16;
  if (int8)
    w.flags |= WgmmaAux::S8;
  if (f8) {
    w.flags |= WgmmaAux::F8A | WgmmaAux::F8B;
    if (elem == "e5m2")
      w.flags |= WgmmaAux::E5M2A;
    if (bElem == "e5m2")
      w.flags |= WgmmaAux::E5M2B;
  }
  w.d = f->regs["d"];
  if (regA) {
    w.flags |= WgmmaAux::RegA;
    w.aRegs = f->regs["a"];
    if (w.aRegs.size() != 4) {
      why = "expected 4 A registers, not " + std::to_string(w.aRegs.size());
      return std::nullopt;
    }
  } else {
    w.descA = unsigned(f->ints["a"]);
  }
  w.descB = unsigned(f->ints["b"]);
  w.scaleOperand = unsigned(f->ints["scale"]);
  if (w.d.size() != w.n / 2) {
    why = "expected " + std::to_string(w.n / 2) + " D registers, not " +
          std::to_string(w.d.size());
    return std::nullopt;
  }
  auto flag = [&](StringRef field, int64_t on, int64_t off, uint32_t bit) {
    int64_t v = f->ints[field];
    if (v == on)
      w.flags |= bit;
    return v == on || v == off;
  };
  if (!flag("sa", -1, 1, WgmmaAux::NegA) ||
      !flag("sb", -1, 1, WgmmaAux::NegB) ||
      !flag("ta", 1, 0, WgmmaAux::TransA) ||
      !flag("tb", 1, 0, WgmmaAux::TransB)) {
    why = "imm-scale-a/b must be 1 or -1 and imm-trans-a/b 0 or 1";
    return std::nullopt;
  }
  return w;
}

constexpr uint32_t kNoSlot = ~0u;

/// nvvm.read.ptx.sreg.{cluster.ctaid, cluster.nctaid, clusterid,
/// nclusterid}.{x,y,z}, cluster.ctarank and cluster.nctarank, as NVVM ops
/// or as intrinsics ("llvm." and the same name): Opc::ClusterReg's sub.
std::optional<uint8_t> clusterRegisterSub(StringRef name) {
  name.consume_front("llvm.");
  if (!name.consume_front("nvvm.read.ptx.sreg."))
    return std::nullopt;
  if (name == "cluster.ctarank")
    return uint8_t(4 << 2);
  if (name == "cluster.nctarank")
    return uint8_t(5 << 2);
  static const std::pair<StringRef, uint8_t> kinds[] = {{"cluster.ctaid.", 0},
                                                        {"cluster.nctaid.", 1},
                                                        {"clusterid.", 2},
                                                        {"nclusterid.", 3}};
  for (auto [prefix, kind] : kinds)
    if (name.size() == prefix.size() + 1 && name.starts_with(prefix) &&
        name.back() >= 'x' && name.back() <= 'z')
      return uint8_t(kind << 2 | (name.back() - 'x'));
  return std::nullopt;
}

/// barrier.cluster.arrive (0), .arrive.relaxed (1), .wait (2), as NVVM ops
/// or intrinsics (with or without .aligned: the simulator does not check
/// that a warp's threads execute it together).
std::optional<uint8_t> clusterBarrierSub(StringRef name) {
  return llvm::StringSwitch<std::optional<uint8_t>>(name)
      .Cases({"nvvm.cluster.arrive", "llvm.nvvm.barrier.cluster.arrive",
              "llvm.nvvm.barrier.cluster.arrive.aligned"},
             0)
      .Cases({"nvvm.cluster.arrive.relaxed",
              "llvm.nvvm.barrier.cluster.arrive.relaxed",
              "llvm.nvvm.barrier.cluster.arrive.relaxed.aligned"},
             1)
      .Cases({"nvvm.cluster.wait", "llvm.nvvm.barrier.cluster.wait",
              "llvm.nvvm.barrier.cluster.wait.aligned"},
             2)
      .Default(std::nullopt);
}

std::optional<int64_t> constantInt(Value v) {
  if (auto c = v.getDefiningOp<LLVM::ConstantOp>())
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return i.getValue().getSExtValue();
  return std::nullopt;
}

} // namespace

/// The cluster ops, as NVVM ops or as intrinsics called by name: special
/// registers, mapa, the cluster barrier, mbarrier arrives with a scope and
/// space (a peer's mbarrier through shared::cluster) and the TMA load
/// intrinsic with its multicast form. nullopt: not one of them.
std::optional<bool> Decoder::decodeClusterOp(Operation *op, StringRef name) {
  if (std::optional<uint8_t> sub = clusterRegisterSub(name)) {
    Inst *in = emitResult(Opc::ClusterReg, op);
    if (in)
      in->sub = *sub;
    return in != nullptr;
  }
  if (std::optional<uint8_t> sub = clusterBarrierSub(name)) {
    if (op->getNumOperands() || op->getNumResults())
      return fail(op, "'" + name + "' takes no operands");
    emit(Opc::ClusterBarrier, op).sub = *sub;
    return true;
  }
  if (name == "nvvm.mapa" || name == "llvm.nvvm.mapa" ||
      name == "llvm.nvvm.mapa.shared.cluster") {
    if (op->getNumOperands() != 2)
      return fail(op, "mapa takes an address and a CTA rank");
    return emitResult(Opc::Mapa, op) != nullptr;
  }
  StringRef rest = name;
  if (rest.consume_front("llvm.nvvm.mbarrier.arrive.")) {
    bool expectTx = rest.consume_front("expect_tx.");
    rest.consume_front("relaxed.");
    if (!rest.starts_with("scope."))
      return std::nullopt;
    if (op->getNumOperands() != 2)
      return fail(op, "'" + name + "' takes an mbarrier and a count");
    Opc opc = expectTx ? Opc::MBarArriveExpectTx : Opc::MBarArrive;
    Inst *in = op->getNumResults() ? emitResult(opc, op) : &emit(opc, op);
    if (!in)
      return false;
    in->a = slot(op->getOperand(0));
    in->b = slot(op->getOperand(1));
    in->srcAddrSpace = typeInfo(op->getOperand(0).getType())->addrSpace;
    return true;
  }
  if (rest.consume_front("llvm.nvvm.cp.async.bulk.tensor.g2s.tile.")) {
    // (dst, mbar, tensor map, coordinates, i16 mask, i64 cache hint,
    // i1 multicast, i1 use the hint, i32 cta_group)
    if (rest.size() != 2 || rest[1] != 'd' || rest[0] < '1' || rest[0] > '5')
      return std::nullopt;
    unsigned dims = rest[0] - '0';
    if (op->getNumOperands() != 3 + dims + 5)
      return fail(op, "'" + name + "' has the wrong number of operands");
    std::optional<int64_t> multicast =
        constantInt(op->getOperand(3 + dims + 2));
    std::optional<int64_t> group = constantInt(op->getOperand(3 + dims + 4));
    if (!multicast || !group || *group != 0)
      return fail(op, "'" + name +
                          "': the multicast flag must be a constant and "
                          "cta_group 0 (the simulator does not implement "
                          "cta_group::1 / ::2)");
    Inst &in = emit(Opc::TmaLoad, op);
    in.a = slot(op->getOperand(0));
    in.c = slot(op->getOperand(1));
    in.b = slot(op->getOperand(2));
    in.srcAddrSpace = typeInfo(op->getOperand(0).getType())->addrSpace;
    in.aux = p.aux.size();
    p.aux.push_back(dims);
    for (unsigned d = 0; d < dims; ++d)
      p.aux.push_back(slot(op->getOperand(3 + d)));
    p.aux.push_back(*multicast ? slot(op->getOperand(3 + dims)) : kNoSlot);
    return true;
  }
  return std::nullopt;
}

/// The results of wgmma inline asm, what extractvalue, vector element
/// moves and branch arguments copy them into (register renames: the
/// registers that wgmma writes and a chained wgmma reads), and every other
/// op that reads them: on the GPU those reads are only defined after
/// wgmma.wait_group retired the wgmma.
void Decoder::findWgmmaAccumulators() {
  SmallVector<Value> work;
  func.walk([&](LLVM::InlineAsmOp a) {
    if (isWgmmaAsm(a) && a.getRes() && accValues.insert(a.getRes()).second)
      work.push_back(a.getRes());
  });
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      auto add = [&](Value copy) {
        if (accValues.insert(copy).second)
          work.push_back(copy);
      };
      if (isa<LLVM::ExtractValueOp, LLVM::InsertElementOp,
              LLVM::ExtractElementOp, LLVM::ShuffleVectorOp>(user)) {
        add(user->getResult(0));
      } else if (auto br = dyn_cast<BranchOpInterface>(user)) {
        if (std::optional<BlockArgument> arg =
                br.getSuccessorBlockArgument(use.getOperandNumber()))
          add(*arg);
        else
          accReaders.insert(user);
      } else if (auto a = dyn_cast<LLVM::InlineAsmOp>(user);
                 !a || !isWgmmaAsm(a)) {
        accReaders.insert(user);
      }
    }
  }
}

/// A wgmma.mma_async in inline asm (see parseWgmmaAsm).
bool Decoder::decodeWgmma(LLVM::InlineAsmOp op) {
  std::string why;
  std::optional<WgmmaAsm> w = parseWgmmaAsm(op.getAsmString(), why);
  auto refuse = [&](const Twine &reason) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::printEscapedString(op.getAsmString(), os); // as MLIR prints it
    return fail(op, "the simulator does not implement inline assembly '" +
                        text + "': " + reason);
  };
  if (!w)
    return refuse(why);
  SmallVector<StringRef> constraints;
  op.getConstraints().split(constraints, ',');
  unsigned numOut = 0;
  while (numOut < constraints.size() && constraints[numOut].starts_with("="))
    ++numOut;
  auto result = op.getRes()
                    ? dyn_cast<LLVM::LLVMStructType>(op.getRes().getType())
                    : LLVM::LLVMStructType();
  // f32 accumulators, or s32 ones for 8-bit multiplicands.
  bool s32 = w->flags & WgmmaAux::S8;
  if (numOut != w->n / 2 || !result || result.getBody().size() != numOut ||
      llvm::any_of(result.getBody(),
                   [&](Type t) {
                     return s32 ? !t.isInteger(32) : !isa<Float32Type>(t);
                   }) ||
      llvm::any_of(ArrayRef(constraints).take_front(numOut),
                   [&](StringRef c) { return c != (s32 ? "=r" : "=f"); }))
    return refuse(llvm::formatv("expected {0} {1} outputs (\"={2}\") in a "
                                "struct",
                                w->n / 2, s32 ? "i32" : "f32",
                                s32 ? "r" : "f"));
  if (constraints.size() != numOut + op.getOperands().size())
    return refuse("the constraints do not match the operands");
  // asm operand $k -> the op's input operand (k - numOut).
  auto input = [&](unsigned k, bool i64, Value &v) {
    if (k < numOut || k - numOut >= op.getOperands().size())
      return false;
    v = op.getOperands()[k - numOut];
    auto it = dyn_cast<IntegerType>(v.getType());
    return it && it.getWidth() == (i64 ? 64u : 32u);
  };
  Value descA, descB, scale;
  bool regA = w->flags & WgmmaAux::RegA;
  if ((!regA && !input(w->descA, true, descA)) || !input(w->descB, true, descB))
    return refuse("the descriptors must be i64 inputs");
  SmallVector<Value, 4> aRegs;
  for (unsigned k : w->aRegs) {
    Value v;
    if (!input(k, false, v))
      return refuse("the A registers must be i32 inputs");
    aRegs.push_back(v);
  }
  if (!input(w->scaleOperand, false, scale))
    return refuse("scale-d must be set from an i32 input");
  // The accumulator input of output j: the input tied to it ("j").
  std::vector<uint32_t> accIn(numOut, kNoSlot);
  for (unsigned i = numOut; i < constraints.size(); ++i) {
    unsigned tied;
    if (!constraints[i].getAsInteger(10, tied) && tied < numOut)
      accIn[tied] = slot(op.getOperands()[i - numOut]);
  }
  llvm::DenseSet<unsigned> seen;
  for (unsigned k : w->d)
    if (k >= numOut || !seen.insert(k).second)
      return refuse("each D register must be a distinct output");
    else if (accIn[k] == kNoSlot)
      return refuse(llvm::formatv("D register ${0} has no tied input "
                                  "accumulator",
                                  k));
  Value res = op.getRes();
  slots[res] = nextSlot;
  nextSlot += numOut;
  Inst &in = emit(Opc::Wgmma, op);
  in.res = slots[res];
  in.ek = EK::F32, in.bits = 32, in.lanes = numOut;
  in.a = regA ? slot(descB) : slot(descA);
  in.b = slot(descB);
  in.c = slot(scale);
  in.aux = p.aux.size();
  p.aux.push_back(w->n);
  p.aux.push_back(w->flags);
  for (unsigned k : w->d) {
    p.aux.push_back(k);        // result field of this D register
    p.aux.push_back(accIn[k]); // its accumulator input
  }
  for (Value v : aRegs)
    p.aux.push_back(slot(v));
  p.hasWgmma = true;
  return true;
}

/// nvvm.ldmatrix of 8x8 b16 matrices: the result is one i32 per matrix
/// (a struct of them for x2 / x4), one slot each.
bool Decoder::decodeLdMatrix(NVVM::LdMatrixOp ld) {
  if (ld.getShape().getM() != 8 || ld.getShape().getN() != 8 ||
      ld.getEltType() != NVVM::LdStMatrixEltType::B16)
    return fail(ld, "the simulator implements ldmatrix of 8x8 b16 "
                    "matrices only");
  unsigned num = ld.getNum();
  Value res = ld.getRes();
  slots[res] = nextSlot;
  nextSlot += num;
  Inst &in = emit(Opc::LdMatrix, ld);
  in.res = slots[res];
  in.a = slot(ld.getPtr());
  in.lanes = num;
  in.bits = 32;
  in.addrSpace = 3;
  in.sub = ld.getLayout() == NVVM::MMALayout::col;
  return true;
}

/// nvvm.mma.sync m16n8k16 row.col with f16 or bf16 operands and f32
/// accumulators, or m16n8k32 with s8 operands and wrapping s32 ones: aux =
/// 0 (f16), 1 (bf16) or 2 (s8), then (slot, lanes) of the 4 A and 2 B
/// registers (vector<2xf16> or packed i32), then the 4 C slots.
bool Decoder::decodeMmaSync(NVVM::MmaOp mma) {
  auto shape = mma.getShape();
  auto ptx = mma.getMultiplicandAPtxType();
  bool f16 = ptx == NVVM::MMATypes::f16, bf16 = ptx == NVVM::MMATypes::bf16,
       s8 = ptx == NVVM::MMATypes::s8;
  auto res = dyn_cast<LLVM::LLVMStructType>(mma.getRes().getType());
  if (shape.getM() != 16 || shape.getN() != 8 ||
      shape.getK() != (s8 ? 32 : 16) || !(f16 || bf16 || s8) ||
      mma.getMultiplicandBPtxType() != ptx ||
      mma.getLayoutA() != NVVM::MMALayout::row ||
      mma.getLayoutB() != NVVM::MMALayout::col ||
      (s8 && mma.getIntOverflowBehavior() != NVVM::MMAIntOverflow::wrapped) ||
      mma.getOperandA().size() != 4 || mma.getOperandB().size() != 2 ||
      mma.getOperandC().size() != 4 || !res || res.getBody().size() != 4 ||
      llvm::any_of(mma.getOperandC(), [&](Value v) {
        return s8 ? !v.getType().isInteger(32) : !v.getType().isF32();
      }))
    return fail(mma, "the simulator implements mma.sync.aligned.m16n8k16."
                     "row.col.f32 with f16 or bf16 operands and "
                     "m16n8k32.row.col.s32.s8.s8.s32 (wrapping) only");
  Value r = mma.getRes();
  slots[r] = nextSlot;
  nextSlot += 4;
  Inst &in = emit(Opc::MmaSync, mma);
  in.res = slots[r];
  if (s8)
    in.ek = EK::Int, in.bits = 32, in.lanes = 4;
  else
    in.ek = EK::F32, in.bits = 32, in.lanes = 4;
  in.aux = p.aux.size();
  p.aux.push_back(s8 ? 2 : bf16);
  for (Value v : llvm::concat<Value>(mma.getOperandA(), mma.getOperandB())) {
    std::optional<TypeInfo> t = typeInfo(v.getType());
    if (!t || t->lanes * t->bits != 32)
      return fail(mma, "mma.sync operand registers must be 32 bits");
    p.aux.push_back(slot(v));
    p.aux.push_back(t->lanes);
  }
  for (Value v : mma.getOperandC())
    p.aux.push_back(slot(v));
  return true;
}

/// v_mfma_f32_16x16x16: (a, b: 4 x f16 or i16, c: 4 x f32, cbsz, abid,
/// blgp) -> 4 x f32; v_mfma_i32_16x16x16i8 (a, b: i32, 4 x i8) and
/// v_mfma_i32_16x16x32_i8 (a, b: i64, 8 x i8) with c: 4 x i32. The
/// broadcast controls must be 0. `kind`: 0 f16, 1 bf16, 2 and 3 the i8
/// forms with 4 and 8 bytes a lane; 4 + (A is bf8) + 2 (B is bf8):
/// v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} (a, b: i64, 8 bytes; c: 4 x f32).
bool Decoder::decodeMfma(Operation *op, unsigned kind) {
  if (op->getNumOperands() != 6)
    return fail(op, "expected 6 MFMA operands");
  for (unsigned i = 3; i < 6; ++i) {
    auto c = op->getOperand(i).getDefiningOp<LLVM::ConstantOp>();
    auto v = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
    if (!v || v.getInt() != 0)
      return fail(op, "the simulator implements MFMA with cbsz = abid = "
                      "blgp = 0 only");
  }
  bool int8 = kind >= 2;
  for (unsigned i = 0; i < 3; ++i) {
    std::optional<TypeInfo> t = typeInfo(op->getOperand(i).getType());
    unsigned lanes = i < 2 && int8 ? 1 : 4;
    unsigned bits = i == 2 ? 32 : int8 ? (kind == 2 ? 32 : 64) : 16;
    if (i == 2 && kind >= 4 && t && t->ek != EK::F32)
      return fail(op, "an fp8 MFMA accumulates in 4 x f32");
    if (!t || t->lanes != lanes || t->bits != bits)
      return fail(op, "MFMA operands must be 4 x 16-bit (a, b) and 4 x f32 "
                      "(c), or packed 8-bit (a, b: i32 or i64) and 4 x i32");
  }
  Inst *in = emitResult(Opc::Mfma, op);
  if (!in)
    return false;
  in->sub = kind;
  return true;
}

/// The tcgen05 inline assembly of kcc's sm_100a lowering, matched against
/// the templates the lowering formats (targets/PtxInlineAsm.h): the
/// simulator implements those forms only, each a located error otherwise.
bool Decoder::decodeTcgen05(LLVM::InlineAsmOp op) {
  namespace ptx = kcc::ptx;
  StringRef text = StringRef(op.getAsmString()).trim();
  auto refuse = [&](const Twine &why) {
    return fail(op, "the simulator does not implement the tcgen05 inline "
                    "assembly '" +
                        text + "': " + why);
  };
  auto i32Input = [&](unsigned i, uint32_t &out) {
    if (i >= op.getOperands().size() ||
        !op.getOperands()[i].getType().isInteger(32))
      return false;
    out = slot(op.getOperands()[i]);
    return true;
  };
  if (ptx::match(ptx::kTcgen05FenceBefore, text) ||
      ptx::match(ptx::kTcgen05FenceAfter, text)) {
    // Orders tcgen05 ops around a thread barrier; the simulator runs them
    // at once.
    emit(Opc::Nop, op);
    return true;
  }
  for (bool relinquish : {false, true})
    if (std::optional<ptx::AsmFields> f =
            ptx::match(relinquish ? ptx::kTcgen05AllocRelinquish
                                  : ptx::kTcgen05Alloc,
                       text)) {
      uint32_t a;
      if (!i32Input(0, a))
        return refuse("expected an i32 shared offset");
      Inst &in = emit(Opc::TmemAlloc, op);
      in.a = a, in.c = uint32_t(f->ints["cols"]);
      in.sub = relinquish;
      return true;
    }
  if (std::optional<ptx::AsmFields> f = ptx::match(ptx::kTcgen05Dealloc, text)) {
    uint32_t a;
    if (!i32Input(0, a))
      return refuse("expected an i32 TMEM address");
    Inst &in = emit(Opc::TmemDealloc, op);
    in.a = a, in.c = uint32_t(f->ints["cols"]);
    return true;
  }
  // The kind (Inst::sub): 0 kind::f16, 1 kind::i8, 2 kind::f8f6f4.
  bool mmaI8 = ptx::match(ptx::kTcgen05MmaI8, text).has_value();
  bool mmaF8 = ptx::match(ptx::kTcgen05MmaF8F6F4, text).has_value();
  if (mmaI8 || mmaF8 || ptx::match(ptx::kTcgen05Mma, text)) {
    uint32_t d, idesc, enable;
    auto i64 = [&](unsigned i) {
      return i < op.getOperands().size() &&
             op.getOperands()[i].getType().isInteger(64);
    };
    if (!i32Input(0, d) || !i64(1) || !i64(2) || !i32Input(3, idesc) ||
        !i32Input(4, enable))
      return refuse("expected an i32 TMEM address, two i64 descriptors, an "
                    "i32 instruction descriptor and an i32 enable-input-d");
    Inst &in = emit(Opc::Tcgen05Mma, op);
    in.sub = mmaI8 ? 1 : mmaF8 ? 2 : 0;
    in.a = d, in.b = slot(op.getOperands()[1]),
    in.c = slot(op.getOperands()[2]);
    in.aux = p.aux.size();
    p.aux.push_back(idesc);
    p.aux.push_back(enable);
    return true;
  }
  if (ptx::match(ptx::kTcgen05Commit, text)) {
    uint32_t a;
    if (!i32Input(0, a))
      return refuse("expected an i32 shared offset");
    emit(Opc::Tcgen05Commit, op).a = a;
    return true;
  }
  if (std::optional<ptx::AsmFields> f =
          ptx::match(ptx::kTcgen05Ld32x32bX32, text)) {
    uint32_t a;
    Value res = op.getRes();
    auto st = res ? dyn_cast<LLVM::LLVMStructType>(res.getType())
                  : LLVM::LLVMStructType();
    std::vector<unsigned> &d = f->regs["d"];
    bool inOrder = d.size() == 32;
    for (unsigned i = 0; inOrder && i < 32; ++i)
      inOrder = d[i] == i;
    if (!inOrder || f->ints["addr"] != 32 || !st ||
        st.getBody().size() != 32 ||
        llvm::any_of(st.getBody(), [](Type t) { return !t.isInteger(32); }) ||
        op.getOperands().size() != 1 || !i32Input(0, a))
      return refuse("expected 32 i32 outputs $0..$31 and an i32 TMEM "
                    "address $32");
    slots[res] = nextSlot;
    nextSlot += 32;
    Inst &in = emit(Opc::TmemLd, op);
    in.res = slots[res];
    in.a = a;
    in.ek = EK::Int, in.bits = 32, in.lanes = 32;
    return true;
  }
  return refuse("not a form kcc emits");
}

/// An empty inline asm whose outputs are tied to its inputs ("=f,..,0,..")
/// keeps registers in place across it (kcc's accumulator fence after
/// wgmma.wait_group): output j is a copy of input j.
bool Decoder::decodeOperandFence(LLVM::InlineAsmOp op) {
  SmallVector<StringRef> constraints;
  op.getConstraints().split(constraints, ',');
  unsigned n = op.getOperands().size();
  Value res = op.getRes();
  auto st = res ? dyn_cast<LLVM::LLVMStructType>(res.getType())
                : LLVM::LLVMStructType();
  bool ok = constraints.size() == 2 * n && n > 0 &&
            (st ? st.getBody().size() == n : n == 1);
  for (unsigned j = 0; ok && j < n; ++j) {
    unsigned tied;
    ok =
        constraints[j].starts_with("=") &&
        !constraints[n + j].getAsInteger(10, tied) && tied == j &&
        op.getOperands()[j].getType() == (st ? st.getBody()[j] : res.getType());
  }
  if (!ok)
    return fail(op, "the simulator implements an empty inline asm only as "
                    "an operand fence: each output tied to the input of "
                    "the same position (\"=f,..,0,1,..\")");
  slots[res] = nextSlot;
  nextSlot += n;
  uint32_t base = slots[res];
  for (unsigned j = 0; j < n; ++j) {
    Value in = op.getOperands()[j];
    std::optional<TypeInfo> t = typeInfo(in.getType());
    if (!t || t->lanes != 1)
      return fail(op, "the simulator implements operand fences on scalars "
                      "only");
    Inst &copy = emit(Opc::Copy, op);
    copy.res = base + j;
    copy.a = slot(in);
    copy.ek = t->ek, copy.bits = t->bits, copy.lanes = 1, copy.c = 1;
  }
  return true;
}

bool Decoder::decodeTargetOp(Operation *op, StringRef name) {
  if (std::optional<bool> done = decodeClusterOp(op, name))
    return *done;
  // Thread, block and grid ids: NVVM special registers, ROCDL ids.
  auto axisOf = [&](StringRef prefix) -> std::optional<uint8_t> {
    if (!name.starts_with(prefix) || name.size() != prefix.size() + 1)
      return std::nullopt;
    char c = name.back();
    if (c < 'x' || c > 'z')
      return std::nullopt;
    return uint8_t(c - 'x');
  };
  std::pair<StringRef, Opc> ids[] = {
      {"nvvm.read.ptx.sreg.tid.", Opc::ThreadId},
      {"nvvm.read.ptx.sreg.ctaid.", Opc::BlockId},
      {"nvvm.read.ptx.sreg.ntid.", Opc::BlockDim},
      {"nvvm.read.ptx.sreg.nctaid.", Opc::GridDim},
      {"rocdl.workitem.id.", Opc::ThreadId},
      {"rocdl.workgroup.id.", Opc::BlockId},
      {"rocdl.workgroup.dim.", Opc::BlockDim},
  };
  for (auto [prefix, opc] : ids)
    if (std::optional<uint8_t> axis = axisOf(prefix)) {
      Inst *in = emitResult(opc, op);
      if (!in)
        return false;
      in->sub = *axis;
      return true;
    }
  if (name == "nvvm.barrier0" || name == "rocdl.barrier" ||
      name == "rocdl.s.barrier") {
    Inst &in = emit(Opc::Barrier, op);
    in.a = in.b = ~0u;
    return true;
  }
  if (auto bar = dyn_cast<NVVM::BarrierOp>(op)) {
    if (op->getNumResults())
      return fail(op, "barrier reductions (bar.red) are not supported");
    Inst &in = emit(Opc::Barrier, op);
    in.a = bar.getBarrierId() ? slot(bar.getBarrierId()) : ~0u;
    in.b = bar.getNumberOfThreads() ? slot(bar.getNumberOfThreads()) : ~0u;
    return true;
  }
  if (auto shfl = dyn_cast<NVVM::ShflOp>(op)) {
    if (shfl.getReturnValueAndIsValid())
      return fail(op, "nvvm.shfl.sync with a validity result is not "
                      "supported");
    Inst *in = emitResult(Opc::Shfl, op);
    if (!in)
      return false;
    in->a = slot(shfl.getThreadMask());
    in->b = slot(shfl.getVal());
    in->c = slot(shfl.getOffset());
    in->aux = slot(shfl.getMaskAndClamp());
    in->sub = uint8_t(shfl.getKind());
    return true;
  }
  if (auto cvt = dyn_cast<NVVM::ConvertF32x2ToF8x2Op>(op)) {
    Type f8 = cvt.getDstTy();
    if (cvt.getRnd() != NVVM::FPRoundingMode::RN ||
        cvt.getSat() != NVVM::SaturationMode::SATFINITE || cvt.getRelu() ||
        !isa<Float8E4M3FNType, Float8E5M2Type>(f8) ||
        !isa<VectorType>(cvt.getDst().getType()))
      return fail(op, "the simulator implements cvt.rn.satfinite to "
                      "e4m3x2 / e5m2x2 as a <2 x i8> only");
    Inst *in = emitResult(Opc::CvtF32x2ToF8x2, op);
    if (!in)
      return false;
    in->sub = uint8_t(isa<Float8E5M2Type>(f8) ? F8::E5M2 : F8::E4M3);
    return true;
  }
  if (auto cvt = dyn_cast<NVVM::ConvertF8x2ToF16x2Op>(op)) {
    Type f8 = cvt.getSrcType();
    if (cvt.getRelu() || !isa<Float8E4M3FNType, Float8E5M2Type>(f8))
      return fail(op, "the simulator implements cvt.rn.f16x2 from e4m3x2 / "
                      "e5m2x2 only");
    Inst *in = emitResult(Opc::CvtF8x2ToF16x2, op);
    if (!in)
      return false;
    in->sub = uint8_t(isa<Float8E5M2Type>(f8) ? F8::E5M2 : F8::E4M3);
    return true;
  }
  // gfx942's conversions: its fp8 / bf8 are the FNUZ formats (gfx950
  // reads the same instructions as the OCP ones; kcc has no gfx950 model).
  if (isa<ROCDL::CvtPkFp8F32Op, ROCDL::CvtPkBf8F32Op>(op)) {
    Inst *in = emitResult(Opc::CvtPkF32ToFnuz, op);
    if (!in)
      return false;
    bool bf8 = isa<ROCDL::CvtPkBf8F32Op>(op);
    in->sub = uint8_t(bf8 ? F8::E5M2FNUZ : F8::E4M3FNUZ);
    in->aux = bf8 ? cast<ROCDL::CvtPkBf8F32Op>(op).getWordSel()
                  : cast<ROCDL::CvtPkFp8F32Op>(op).getWordSel();
    return true;
  }
  if (isa<ROCDL::CvtF32Fp8Op, ROCDL::CvtF32Bf8Op>(op)) {
    Inst *in = emitResult(Opc::CvtFnuzToF32, op);
    if (!in)
      return false;
    bool bf8 = isa<ROCDL::CvtF32Bf8Op>(op);
    in->sub = uint8_t(bf8 ? F8::E5M2FNUZ : F8::E4M3FNUZ);
    in->aux = bf8 ? cast<ROCDL::CvtF32Bf8Op>(op).getByteSel()
                  : cast<ROCDL::CvtF32Fp8Op>(op).getByteSel();
    if (in->aux > 3)
      return fail(op, "v_cvt_f32_fp8 / bf8 selects byte 0 to 3");
    return true;
  }
  if (auto ld = dyn_cast<NVVM::LdMatrixOp>(op))
    return decodeLdMatrix(ld);
  if (auto mma = dyn_cast<NVVM::MmaOp>(op))
    return decodeMmaSync(mma);
  if (name == "rocdl.mfma.f32.16x16x16f16" ||
      name == "rocdl.mfma.f32.16x16x16bf16.1k")
    return decodeMfma(op, name.ends_with("1k"));
  if (name == "rocdl.mfma.i32.16x16x16i8")
    return decodeMfma(op, 2);
  if (name == "rocdl.mfma.i32.16x16x32.i8")
    return decodeMfma(op, 3);
  if (name.starts_with("rocdl.mfma.f32.16x16x32.") &&
      (name.ends_with("fp8.fp8") || name.ends_with("fp8.bf8") ||
       name.ends_with("bf8.fp8") || name.ends_with("bf8.bf8")))
    return decodeMfma(op, 4 + name.ends_with("bf8.fp8") +
                              name.ends_with("bf8.bf8") * 3 +
                              name.ends_with("fp8.bf8") * 2);
  if (name.starts_with("rocdl.mfma."))
    return fail(op, "the simulator implements the MFMA instructions "
                    "v_mfma_f32_16x16x16f16, v_mfma_f32_16x16x16bf16_1k, "
                    "v_mfma_i32_16x16x16i8, v_mfma_i32_16x16x32_i8 and "
                    "v_mfma_f32_16x16x32_{fp8,bf8}_{fp8,bf8} only");
  if (name == "rocdl.ds_swizzle")
    return emitResult(Opc::Swizzle, op) != nullptr;
  if (auto dpp = dyn_cast<ROCDL::DPPUpdateOp>(op)) {
    Inst *in = emitResult(Opc::Dpp, op);
    if (!in)
      return false;
    in->aux = p.aux.size();
    p.aux.push_back(dpp.getDppCtrl());
    p.aux.push_back(dpp.getRowMask());
    p.aux.push_back(dpp.getBankMask());
    p.aux.push_back(dpp.getBoundCtrl());
    return true;
  }
  return decodeAsyncOp(op, name);
}

/// mbarriers, TMA copies, bulk groups and proxy fences (MBarrier.h).
bool Decoder::decodeAsyncOp(Operation *op, StringRef name) {
  auto operandSlots = [&](Inst &in) {
    unsigned n = op->getNumOperands();
    if (n > 0)
      in.a = slot(op->getOperand(0));
    if (n > 1)
      in.b = slot(op->getOperand(1));
    if (n > 2)
      in.c = slot(op->getOperand(2));
    if (n > 0)
      in.srcAddrSpace = typeInfo(op->getOperand(0).getType())->addrSpace;
  };
  auto plain = [&](Opc opc) {
    Inst *in = op->getNumResults() ? emitResult(opc, op) : &emit(opc, op);
    if (!in)
      return false;
    operandSlots(*in);
    return true;
  };
  if (auto init = dyn_cast<NVVM::MBarrierInitOp>(op)) {
    if (init.getPredicate())
      return fail(op, "predicated mbarrier.init is not supported");
    return plain(Opc::MBarInit);
  }
  if (auto a = dyn_cast<NVVM::MBarrierArriveOp>(op)) {
    Inst *in = op->getNumResults() ? emitResult(Opc::MBarArrive, op)
                                   : &emit(Opc::MBarArrive, op);
    if (!in)
      return false;
    in->a = slot(a.getAddr());
    in->srcAddrSpace = typeInfo(a.getAddr().getType())->addrSpace;
    in->b = a.getCount() ? slot(a.getCount()) : ~0u;
    return true;
  }
  if (auto a = dyn_cast<NVVM::MBarrierArriveExpectTxOp>(op)) {
    if (a.getPredicate())
      return fail(op, "predicated mbarrier.arrive.expect_tx is not "
                      "supported");
    return plain(Opc::MBarArriveExpectTx);
  }
  if (isa<NVVM::MBarrierExpectTxOp>(op))
    return plain(Opc::MBarExpectTx);
  if (isa<NVVM::MBarrierCompleteTxOp>(op))
    return plain(Opc::MBarCompleteTx);
  if (isa<NVVM::MBarrierTryWaitParityOp>(op))
    return plain(Opc::MBarTryWaitParity);
  if (isa<NVVM::MBarrierInvalOp>(op))
    return plain(Opc::MBarInval);
  if (auto load =
          dyn_cast<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>(op)) {
    if (load.getPredicate() || !load.getIm2colOffsets().empty() ||
        load.getMode() != NVVM::TMALoadMode::TILE || load.getGroup())
      return fail(op, "only tile-mode, unpredicated TMA loads without a "
                      "CTA group are supported");
    Inst &in = emit(Opc::TmaLoad, op);
    in.a = slot(load.getDstMem());
    in.b = slot(load.getTmaDescriptor());
    in.c = slot(load.getMbar());
    in.srcAddrSpace = typeInfo(load.getDstMem().getType())->addrSpace;
    in.aux = p.aux.size();
    p.aux.push_back(load.getCoordinates().size());
    for (Value v : load.getCoordinates())
      p.aux.push_back(slot(v));
    p.aux.push_back(load.getMulticastMask() ? slot(load.getMulticastMask())
                                            : kNoSlot);
    return true;
  }
  if (auto store = dyn_cast<NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp>(op)) {
    if (store.getPredicate() || store.getMode() != NVVM::TMAStoreMode::TILE)
      return fail(op, "only tile-mode, unpredicated TMA stores are "
                      "supported");
    Inst &in = emit(Opc::TmaStore, op);
    in.a = slot(store.getSrcMem());
    in.b = slot(store.getTmaDescriptor());
    in.aux = p.aux.size();
    p.aux.push_back(store.getCoordinates().size());
    for (Value v : store.getCoordinates())
      p.aux.push_back(slot(v));
    return true;
  }
  if (auto cp = dyn_cast<NVVM::CpAsyncOp>(op)) {
    Inst &in = emit(Opc::CpAsync, op);
    in.a = slot(cp.getDst());
    in.b = slot(cp.getSrc());
    in.c = cp.getCpSize() ? slot(cp.getCpSize()) : ~0u;
    in.sub = uint8_t(cp.getSize());
    in.addrSpace = typeInfo(cp.getDst().getType())->addrSpace;
    in.srcAddrSpace = typeInfo(cp.getSrc().getType())->addrSpace;
    return true;
  }
  if (isa<NVVM::CpAsyncCommitGroupOp>(op)) {
    emit(Opc::CpAsyncCommit, op);
    return true;
  }
  if (auto wait = dyn_cast<NVVM::CpAsyncWaitGroupOp>(op)) {
    Inst &in = emit(Opc::CpAsyncWait, op);
    in.a = wait.getN();
    return true;
  }
  if (isa<NVVM::CpAsyncBulkCommitGroupOp>(op)) {
    emit(Opc::BulkCommit, op);
    return true;
  }
  if (auto wait = dyn_cast<NVVM::CpAsyncBulkWaitGroupOp>(op)) {
    Inst &in = emit(Opc::BulkWait, op);
    in.a = wait.getGroup();
    in.sub = wait.getRead() ? 1 : 0;
    return true;
  }
  // Orders the initializing thread's mbarrier.init before the CTA barrier
  // that follows it; the simulator's barriers already order everything.
  if (isa<NVVM::FenceMbarrierInitOp>(op)) {
    emit(Opc::Nop, op);
    return true;
  }
  // wgmma.fence orders register accesses around wgmma; the simulator
  // checks those itself (kReadsWgmmaAcc).
  if (isa<NVVM::WgmmaFenceAlignedOp>(op)) {
    emit(Opc::Nop, op);
    return true;
  }
  if (isa<NVVM::WgmmaGroupSyncAlignedOp>(op)) {
    emit(Opc::WgmmaCommit, op);
    return true;
  }
  if (auto wait = dyn_cast<NVVM::WgmmaWaitGroupSyncOp>(op)) {
    Inst &in = emit(Opc::WgmmaWait, op);
    in.a = uint32_t(wait.getGroup());
    return true;
  }
  if (auto fence = dyn_cast<NVVM::FenceProxyOp>(op)) {
    emit(fence.getKind() == NVVM::ProxyKind::async ||
                 fence.getKind() == NVVM::ProxyKind::async_shared ||
                 fence.getKind() == NVVM::ProxyKind::async_global
             ? Opc::FenceProxyAsync
             : Opc::Nop,
         op);
    return true;
  }
  return fail(op, "the simulator does not implement '" + name + "'");
}
