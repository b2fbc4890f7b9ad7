//===- Program.cpp - decode an llvm.func for the SIMT simulator -----------===//
#include "sim/Program.h"

#include "ir/Dialect.h"
#include "targets/WgmmaRules.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace kcc::sim;

namespace {

struct TypeInfo {
  EK ek = EK::Int;
  unsigned bits = 0, lanes = 1, addrSpace = 0;
};

/// Scalars, pointers and vectors of them; nothing else lives in registers.
std::optional<TypeInfo> typeInfo(Type t) {
  TypeInfo info;
  if (auto v = dyn_cast<VectorType>(t)) {
    if (v.getRank() != 1 || v.isScalable())
      return std::nullopt;
    info.lanes = v.getNumElements();
    t = v.getElementType();
  }
  if (auto i = dyn_cast<IntegerType>(t)) {
    if (i.getWidth() > 64)
      return std::nullopt;
    info.bits = i.getWidth();
  } else if (isa<Float16Type>(t)) {
    info.ek = EK::F16, info.bits = 16;
  } else if (isa<BFloat16Type>(t)) {
    info.ek = EK::BF16, info.bits = 16;
  } else if (isa<Float32Type>(t)) {
    info.ek = EK::F32, info.bits = 32;
  } else if (isa<Float64Type>(t)) {
    info.ek = EK::F64, info.bits = 64;
  } else if (auto p = dyn_cast<LLVM::LLVMPointerType>(t)) {
    info.ek = EK::Ptr, info.bits = 64, info.addrSpace = p.getAddressSpace();
  } else {
    return std::nullopt;
  }
  if (info.lanes > 0xffff)
    return std::nullopt;
  return info;
}

/// Allocation size in bytes of an LLVM type in memory (natural alignment,
/// as the NVPTX and AMDGPU data layouts give for these types).
std::optional<uint64_t> storeSize(Type t, uint64_t *alignOut = nullptr) {
  uint64_t align = 1, size = 0;
  if (auto a = dyn_cast<LLVM::LLVMArrayType>(t)) {
    std::optional<uint64_t> e = storeSize(a.getElementType(), &align);
    if (!e)
      return std::nullopt;
    size = *e * a.getNumElements();
  } else if (auto s = dyn_cast<LLVM::LLVMStructType>(t)) {
    for (Type f : s.getBody()) {
      uint64_t fa = 1;
      std::optional<uint64_t> fs = storeSize(f, &fa);
      if (!fs)
        return std::nullopt;
      if (!s.isPacked())
        size = (size + fa - 1) / fa * fa, align = std::max(align, fa);
      size += *fs;
    }
    size = (size + align - 1) / align * align;
  } else if (std::optional<TypeInfo> info = typeInfo(t)) {
    uint64_t elem = info->bits == 1 ? 1 : (info->bits + 7) / 8;
    size = elem * info->lanes;
    align = size;
    if (align & (align - 1))
      align = elem;
  } else {
    return std::nullopt;
  }
  if (alignOut)
    *alignOut = align;
  return size;
}

//===----------------------------------------------------------------------===//
// The inline PTX of a warpgroup MMA, as kcc emits it
// (backends/nvidia/WarpgroupMmaToNVVM.cpp):
//   {
//   .reg .pred p;
//   setp.ne.b32 p, $K, 0;
//   wgmma.mma_async.sync.aligned.m64nNk16.f32.T.T {$0, ..}, $A, $B, p,
//       SA, SB, TA, TB;
//   }
// (PTX ISA, "wgmma.mma_async": d, a-desc, b-desc, scale-d, imm-scale-a,
// imm-scale-b, imm-trans-a, imm-trans-b). Anything else is refused.
//===----------------------------------------------------------------------===//

bool isWgmmaAsm(LLVM::InlineAsmOp op) {
  return op.getAsmString().contains("wgmma.mma_async");
}

struct WgmmaAsm {
  unsigned n = 0;
  uint32_t flags = 0;      // WgmmaAux flags
  std::vector<unsigned> d; // asm operand number of each D register
  unsigned descA = 0, descB = 0;
  std::optional<unsigned> scaleOperand; // $K of the scale-d predicate
  bool scaleImm = true;                 // scale-d when given as 0 / 1
};

/// "$12" -> 12.
std::optional<unsigned> asmOperand(StringRef s) {
  s = s.trim();
  unsigned v;
  if (!s.consume_front("$") || s.getAsInteger(10, v))
    return std::nullopt;
  return v;
}

/// The first whitespace-separated word and the trimmed rest.
std::pair<StringRef, StringRef> splitWord(StringRef s) {
  size_t at = s.find_first_of(" \t\n");
  if (at == StringRef::npos)
    return {s, ""};
  return {s.take_front(at), s.drop_front(at).trim()};
}

std::optional<WgmmaAsm> parseWgmmaAsm(StringRef text, std::string &why) {
  WgmmaAsm w;
  StringRef body = text.trim();
  if (body.consume_front("{") && !body.consume_back("}")) {
    why = "unbalanced braces";
    return std::nullopt;
  }
  SmallVector<StringRef> stmts;
  body.split(stmts, ';', -1, /*KeepEmpty=*/false);
  llvm::StringMap<unsigned> predicates; // name -> $K it was set from
  llvm::StringSet<> declared;
  bool sawMma = false;
  for (StringRef stmt : stmts) {
    stmt = stmt.trim();
    if (stmt.empty())
      continue;
    auto [opcode, rest] = splitWord(stmt);
    if (opcode == ".reg") {
      auto [type, names] = splitWord(rest);
      if (type != ".pred") {
        why = "unsupported register declaration '" + stmt.str() + "'";
        return std::nullopt;
      }
      SmallVector<StringRef> list;
      names.split(list, ',');
      for (StringRef n : list)
        declared.insert(n.trim());
      continue;
    }
    if (opcode == "setp.ne.b32" || opcode == "setp.ne.u32" ||
        opcode == "setp.ne.s32") {
      SmallVector<StringRef> ops;
      rest.split(ops, ',');
      std::optional<unsigned> src =
          ops.size() == 3 ? asmOperand(ops[1]) : std::nullopt;
      if (!src || ops[2].trim() != "0" || !declared.contains(ops[0].trim())) {
        why = "unsupported statement '" + stmt.str() + "'";
        return std::nullopt;
      }
      predicates[ops[0].trim()] = *src;
      continue;
    }
    if (!opcode.starts_with("wgmma.mma_async.") || sawMma) {
      why = "unsupported statement '" + stmt.str() + "'";
      return std::nullopt;
    }
    sawMma = true;
    SmallVector<StringRef> parts;
    opcode.split(parts, '.');
    unsigned n = 0;
    StringRef shape = parts.size() == 8 ? parts[4] : "";
    if (parts.size() != 8 || parts[2] != "sync" || parts[3] != "aligned" ||
        !shape.consume_front("m64n") || !shape.consume_back("k16") ||
        shape.getAsInteger(10, n) || parts[5] != "f32" ||
        parts[6] != parts[7] || (parts[6] != "f16" && parts[6] != "bf16")) {
      why = "'" + opcode.str() +
            "': the simulator implements wgmma.mma_async.sync.aligned."
            "m64nNk16.f32 with .f16 or .bf16 multiplicands";
      return std::nullopt;
    }
    if (!kcc::isLegalWgmmaShape(parts[6] == "bf16" ? kcc::WgmmaType::BF16
                                                   : kcc::WgmmaType::F16,
                                64, n, 16, &why))
      return std::nullopt;
    w.n = n;
    if (parts[6] == "bf16")
      w.flags |= WgmmaAux::BF16;
    // {d...}, a-desc, b-desc, scale-d, imm-scale-a, imm-scale-b,
    // imm-trans-a, imm-trans-b
    if (!rest.consume_front("{")) {
      why = "expected the D registers in braces in '" + stmt.str() + "'";
      return std::nullopt;
    }
    auto [dList, tail] = rest.split('}');
    SmallVector<StringRef> ds, ops;
    dList.split(ds, ',');
    for (StringRef r : ds) {
      std::optional<unsigned> o = asmOperand(r);
      if (!o) {
        why = "D register '" + r.trim().str() + "' is not an asm operand";
        return std::nullopt;
      }
      w.d.push_back(*o);
    }
    tail = tail.trim();
    if (!tail.consume_front(",")) {
      why = "malformed operands in '" + stmt.str() + "'";
      return std::nullopt;
    }
    tail.split(ops, ',');
    for (StringRef &o : ops)
      o = o.trim();
    std::optional<unsigned> a =
        ops.size() == 7 ? asmOperand(ops[0]) : std::nullopt;
    std::optional<unsigned> b =
        ops.size() == 7 ? asmOperand(ops[1]) : std::nullopt;
    if (!a || !b || w.d.size() != n / 2) {
      why = "expected " + std::to_string(n / 2) +
            " D registers and the operands a-desc, b-desc, scale-d, "
            "imm-scale-a, imm-scale-b, imm-trans-a, imm-trans-b in '" +
            stmt.str() + "'";
      return std::nullopt;
    }
    w.descA = *a, w.descB = *b;
    if (auto it = predicates.find(ops[2]); it != predicates.end())
      w.scaleOperand = it->second;
    else if (ops[2] == "0" || ops[2] == "1")
      w.scaleImm = ops[2] == "1";
    else {
      why = "scale-d '" + ops[2].str() +
            "' is neither 0, 1 nor a predicate set by setp.ne from an operand";
      return std::nullopt;
    }
    auto flag = [&](StringRef v, StringRef on, StringRef off, uint32_t bit) {
      if (v == on)
        w.flags |= bit;
      return v == on || v == off;
    };
    if (!flag(ops[3], "-1", "1", WgmmaAux::NegA) ||
        !flag(ops[4], "-1", "1", WgmmaAux::NegB) ||
        !flag(ops[5], "1", "0", WgmmaAux::TransA) ||
        !flag(ops[6], "1", "0", WgmmaAux::TransB)) {
      why = "imm-scale-a/b must be 1 or -1 and imm-trans-a/b 0 or 1 in '" +
            stmt.str() + "'";
      return std::nullopt;
    }
  }
  if (!sawMma) {
    why = "no wgmma.mma_async statement";
    return std::nullopt;
  }
  return w;
}

constexpr uint32_t kNoSlot = ~0u;

class Decoder {
public:
  Decoder(LLVM::LLVMFuncOp func, Program &p, DecodeError &err)
      : func(func), p(p), err(err) {}

  bool run() {
    if (func.isExternal())
      return fail(func, "function @" + func.getName().str() + " has no body");
    if (!layoutShared())
      return false;
    // Constants first: they occupy the template area of the register file.
    bool ok = true;
    func.walk([&](Operation *op) {
      if (ok && isConstantLike(op))
        ok = decodeConstant(op);
    });
    if (!ok)
      return false;
    p.constants.resize(nextSlot, 0);
    for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
      if (!assign(arg, func))
        return false;
      p.argSlots.push_back(slots[arg]);
      p.argTypes.push_back(arg.getType());
    }
    for (Block &b : func.getBody())
      for (BlockArgument a : b.getArguments())
        if (!slots.count(a) && !assign(a, func))
          return false;
    findWgmmaAccumulators();
    for (Block &b : func.getBody()) {
      blockPC[&b] = p.code.size();
      for (Operation &op : b) {
        if (isConstantLike(&op))
          continue;
        size_t first = p.code.size();
        if (!decodeOp(&op))
          return false;
        if (accReaders.contains(&op)) {
          std::vector<std::pair<uint32_t, uint32_t>> read;
          for (Value v : op.getOperands())
            if (accValues.contains(v)) {
              unsigned lanes = 1;
              if (auto st = dyn_cast<LLVM::LLVMStructType>(v.getType()))
                lanes = st.getBody().size();
              else if (std::optional<TypeInfo> t = typeInfo(v.getType()))
                lanes = t->lanes;
              read.push_back({slot(v), lanes});
            }
          for (size_t pc = first; pc < p.code.size(); ++pc) {
            p.code[pc].flags |= kReadsWgmmaAcc;
            p.accReads.push_back({uint32_t(pc), read});
          }
        }
      }
    }
    for (auto [auxIndex, block] : fixups)
      p.aux[auxIndex] = blockPC[block];
    p.entry = blockPC[&func.getBody().front()];
    p.numSlots = nextSlot;
    return true;
  }

private:
  LLVM::LLVMFuncOp func;
  Program &p;
  DecodeError &err;
  DenseMap<Value, uint32_t> slots;
  DenseMap<Block *, uint32_t> blockPC;
  std::vector<std::pair<uint32_t, Block *>> fixups;
  llvm::StringMap<uint64_t> sharedOffset;
  uint32_t nextSlot = 0;
  // Values that may hold a wgmma result not yet retired, and the ops
  // (other than register renames and wgmma) that read them.
  llvm::DenseSet<Value> accValues;
  llvm::DenseSet<Operation *> accReaders;

  /// The results of wgmma inline asm, what extractvalue, vector element
  /// moves and branch arguments copy them into (register renames: the
  /// registers that wgmma writes and a chained wgmma reads), and every other
  /// op that reads them: on the GPU those reads are only defined after
  /// wgmma.wait_group retired the wgmma.
  void findWgmmaAccumulators() {
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
  bool decodeWgmma(LLVM::InlineAsmOp op) {
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
    if (numOut != w->n / 2 || !result || result.getBody().size() != numOut ||
        llvm::any_of(result.getBody(),
                     [](Type t) { return !isa<Float32Type>(t); }) ||
        llvm::any_of(ArrayRef(constraints).take_front(numOut),
                     [](StringRef c) { return c != "=f"; }))
      return refuse(llvm::formatv("expected {0} f32 outputs (\"=f\") in a "
                                  "struct",
                                  w->n / 2));
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
    if (!input(w->descA, true, descA) || !input(w->descB, true, descB))
      return refuse("the descriptors must be i64 inputs");
    if (w->scaleOperand && !input(*w->scaleOperand, false, scale))
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
      else if (accIn[k] == kNoSlot && (w->scaleOperand || w->scaleImm))
        return refuse(llvm::formatv("D register ${0} has no tied input "
                                    "accumulator",
                                    k));
    Value res = op.getRes();
    slots[res] = nextSlot;
    nextSlot += numOut;
    Inst &in = emit(Opc::Wgmma, op);
    in.res = slots[res];
    in.ek = EK::F32, in.bits = 32, in.lanes = numOut;
    in.a = slot(descA);
    in.b = slot(descB);
    in.c = scale ? slot(scale) : kNoSlot;
    in.sub = w->scaleImm;
    in.aux = p.aux.size();
    p.aux.push_back(w->n);
    p.aux.push_back(w->flags);
    for (unsigned k : w->d) {
      p.aux.push_back(k);        // result field of this D register
      p.aux.push_back(accIn[k]); // its accumulator input (or kNoSlot)
    }
    p.hasWgmma = true;
    return true;
  }

  /// nvvm.ldmatrix of 8x8 b16 matrices: the result is one i32 per matrix
  /// (a struct of them for x2 / x4), one slot each.
  bool decodeLdMatrix(NVVM::LdMatrixOp ld) {
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
  /// accumulators: aux = bf16 flag, then (slot, lanes) of the 4 A and 2 B
  /// registers (vector<2xf16> or packed i32), then the 4 C slots.
  bool decodeMmaSync(NVVM::MmaOp mma) {
    auto shape = mma.getShape();
    auto ptx = mma.getMultiplicandAPtxType();
    bool f16 = ptx == NVVM::MMATypes::f16, bf16 = ptx == NVVM::MMATypes::bf16;
    auto res = dyn_cast<LLVM::LLVMStructType>(mma.getRes().getType());
    if (shape.getM() != 16 || shape.getN() != 8 || shape.getK() != 16 ||
        !(f16 || bf16) || mma.getMultiplicandBPtxType() != ptx ||
        mma.getLayoutA() != NVVM::MMALayout::row ||
        mma.getLayoutB() != NVVM::MMALayout::col ||
        mma.getOperandA().size() != 4 || mma.getOperandB().size() != 2 ||
        mma.getOperandC().size() != 4 || !res || res.getBody().size() != 4 ||
        llvm::any_of(mma.getOperandC(),
                     [](Value v) { return !v.getType().isF32(); }))
      return fail(mma, "the simulator implements mma.sync.aligned.m16n8k16."
                       "row.col.f32 with f16 or bf16 operands only");
    Value r = mma.getRes();
    slots[r] = nextSlot;
    nextSlot += 4;
    Inst &in = emit(Opc::MmaSync, mma);
    in.res = slots[r];
    in.ek = EK::F32, in.bits = 32, in.lanes = 4;
    in.aux = p.aux.size();
    p.aux.push_back(bf16);
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
  /// blgp) -> 4 x f32; the broadcast controls must be 0.
  bool decodeMfma(Operation *op, bool bf16) {
    if (op->getNumOperands() != 6)
      return fail(op, "expected 6 MFMA operands");
    for (unsigned i = 3; i < 6; ++i) {
      auto c = op->getOperand(i).getDefiningOp<LLVM::ConstantOp>();
      auto v = c ? dyn_cast<IntegerAttr>(c.getValue()) : IntegerAttr();
      if (!v || v.getInt() != 0)
        return fail(op, "the simulator implements MFMA with cbsz = abid = "
                        "blgp = 0 only");
    }
    for (unsigned i = 0; i < 3; ++i) {
      std::optional<TypeInfo> t = typeInfo(op->getOperand(i).getType());
      if (!t || t->lanes != 4 || t->bits != (i < 2 ? 16 : 32))
        return fail(op, "MFMA 16x16x16 operands must be 4 x 16-bit (a, b) "
                        "and 4 x f32 (c)");
    }
    Inst *in = emitResult(Opc::Mfma, op);
    if (!in)
      return false;
    in->sub = bf16;
    return true;
  }

  /// The tcgen05 inline assembly of kcc's sm_100a lowering
  /// (backends/nvidia/Tcgen05ToNVVM.cpp), matched by its exact text: the
  /// simulator implements those forms only, each a located error otherwise.
  bool decodeTcgen05(LLVM::InlineAsmOp op) {
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
    // The column count after "], " or "$0, " up to ';'.
    auto columnsAfter = [&](StringRef marker, uint32_t &cols) {
      size_t at = text.find(marker);
      if (at == StringRef::npos)
        return false;
      StringRef rest = text.drop_front(at + marker.size());
      return !rest.take_until([](char c) { return c == ';'; })
                  .trim()
                  .getAsInteger(10, cols);
    };
    if (text == "tcgen05.fence::before_thread_sync;" ||
        text == "tcgen05.fence::after_thread_sync;") {
      // Orders tcgen05 ops around a thread barrier; the simulator runs them
      // at once.
      emit(Opc::Nop, op);
      return true;
    }
    if (text.starts_with("tcgen05.alloc.cta_group::1.sync.aligned.shared::"
                         "cta.b32 [$0], ")) {
      uint32_t cols, a;
      if (!columnsAfter("[$0], ", cols) || !i32Input(0, a))
        return refuse("expected [$0], <columns> with an i32 shared offset");
      Inst &in = emit(Opc::TmemAlloc, op);
      in.a = a, in.c = cols;
      in.sub = text.contains("tcgen05.relinquish_alloc_permit.cta_group::1."
                             "sync.aligned;");
      return true;
    }
    if (text.starts_with(
            "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, ")) {
      uint32_t cols, a;
      if (!columnsAfter("$0, ", cols) || !i32Input(0, a))
        return refuse("expected $0, <columns> with an i32 TMEM address");
      Inst &in = emit(Opc::TmemDealloc, op);
      in.a = a, in.c = cols;
      return true;
    }
    if (text.contains("tcgen05.mma.cta_group::1.kind::f16 [$0], $1, $2, $3, "
                      "p;") &&
        text.contains("setp.ne.b32 p, $4, 0;")) {
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
      in.a = d, in.b = slot(op.getOperands()[1]),
      in.c = slot(op.getOperands()[2]);
      in.aux = p.aux.size();
      p.aux.push_back(idesc);
      p.aux.push_back(enable);
      return true;
    }
    if (text == "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::"
                "cluster.b64 [$0];") {
      uint32_t a;
      if (!i32Input(0, a))
        return refuse("expected an i32 shared offset");
      emit(Opc::Tcgen05Commit, op).a = a;
      return true;
    }
    if (text.starts_with("tcgen05.ld.sync.aligned.32x32b.x32.b32 {") &&
        text.ends_with("}, [$32];")) {
      uint32_t a;
      Value res = op.getRes();
      auto st = res ? dyn_cast<LLVM::LLVMStructType>(res.getType())
                    : LLVM::LLVMStructType();
      if (!st || st.getBody().size() != 32 ||
          llvm::any_of(st.getBody(), [](Type t) { return !t.isInteger(32); }) ||
          op.getOperands().size() != 1 || !i32Input(0, a))
        return refuse("expected 32 i32 outputs and an i32 TMEM address");
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
  bool decodeOperandFence(LLVM::InlineAsmOp op) {
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
      ok = constraints[j].starts_with("=") &&
           !constraints[n + j].getAsInteger(10, tied) && tied == j &&
           op.getOperands()[j].getType() ==
               (st ? st.getBody()[j] : res.getType());
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

  bool fail(Operation *op, const Twine &msg) {
    err.message = msg.str();
    err.loc = op->getLoc();
    return false;
  }

  static bool isConstantLike(Operation *op) {
    return isa<LLVM::ConstantOp, LLVM::PoisonOp, LLVM::UndefOp, LLVM::ZeroOp,
               LLVM::AddressOfOp>(op);
  }

  std::optional<TypeInfo> info(Value v, Operation *op) {
    std::optional<TypeInfo> t = typeInfo(v.getType());
    if (!t) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << v.getType();
      fail(op, "the simulator does not support values of type " + s + " ('" +
                   op->getName().getStringRef() + "')");
    }
    return t;
  }

  bool assign(Value v, Operation *where) {
    std::optional<TypeInfo> t = info(v, where);
    if (!t)
      return false;
    slots[v] = nextSlot;
    nextSlot += t->lanes;
    return true;
  }
  bool assign(Value v, LLVM::LLVMFuncOp f) {
    return assign(v, f.getOperation());
  }

  uint32_t slot(Value v) { return slots.lookup(v); }

  bool layoutShared() {
    auto module = func->getParentOfType<ModuleOp>();
    if (!module)
      return true;
    uint64_t offset = 0;
    SmallVector<LLVM::GlobalOp> dynamic;
    // Only the kernel's own buffers: a module holds every kernel of a file,
    // and a CTA gets the shared memory of the one it runs.
    llvm::StringSet<> used;
    func.walk([&](LLVM::AddressOfOp a) { used.insert(a.getGlobalName()); });
    for (auto g : module.getOps<LLVM::GlobalOp>()) {
      if (g.getAddrSpace() != 3)
        continue;
      // An external zero-sized array is dynamic shared memory (`extern
      // __shared__`): every one starts where the static ones end.
      auto array = dyn_cast<LLVM::LLVMArrayType>(g.getGlobalType());
      if (array && array.getNumElements() == 0 &&
          g.getLinkage() == LLVM::Linkage::External) {
        dynamic.push_back(g);
        continue;
      }
      if (!used.contains(g.getSymName()))
        continue;
      uint64_t align = 1;
      std::optional<uint64_t> size = storeSize(g.getGlobalType(), &align);
      if (!size)
        return fail(g, "shared global @" + g.getSymName().str() +
                           " has a type the simulator cannot size");
      if (auto a = g.getAlignment())
        align = std::max<uint64_t>(align, *a);
      offset = (offset + align - 1) / align * align;
      sharedOffset[g.getSymName()] = offset;
      p.shared.push_back({g.getSymName().str(), offset, *size});
      offset += *size;
    }
    if (!dynamic.empty()) {
      // As much as the kernel's launch provides (kcc-convert-to-llvm records
      // it); reports name the kernel's own buffer.
      uint64_t bytes = 0;
      if (auto a = func->getAttrOfType<IntegerAttr>(
              kcc::KccDialect::kDynamicSmemBytesAttr))
        bytes = a.getInt();
      uint64_t align = 16;
      for (LLVM::GlobalOp g : dynamic)
        align = std::max<uint64_t>(align, g.getAlignment().value_or(1));
      offset = (offset + align - 1) / align * align;
      for (LLVM::GlobalOp g : dynamic) {
        sharedOffset[g.getSymName()] = offset;
        if (used.contains(g.getSymName()))
          p.shared.push_back({g.getSymName().str(), offset, bytes});
      }
      offset += bytes;
    }
    p.sharedBytes = offset;
    return true;
  }

  bool decodeConstant(Operation *op) {
    Value r = op->getResult(0);
    if (!assign(r, op))
      return false;
    std::optional<TypeInfo> t = typeInfo(r.getType());
    uint32_t base = slots[r];
    if (p.constants.size() < nextSlot)
      p.constants.resize(nextSlot, 0);
    if (auto a = dyn_cast<LLVM::AddressOfOp>(op)) {
      auto it = sharedOffset.find(a.getGlobalName());
      if (it == sharedOffset.end() || t->addrSpace != 3)
        return fail(op, "llvm.mlir.addressof @" + a.getGlobalName().str() +
                            ": only shared-memory (addr_space 3) globals "
                            "are supported");
      p.constants[base] = it->second;
      return true;
    }
    auto c = dyn_cast<LLVM::ConstantOp>(op);
    if (!c)
      return true; // poison, undef, zero: 0 (poison is not tracked)
    auto bitsOf = [&](Attribute a) -> std::optional<uint64_t> {
      if (auto i = dyn_cast<IntegerAttr>(a))
        return i.getValue().getZExtValue() &
               (t->bits >= 64 ? ~0ull : (1ull << t->bits) - 1);
      if (auto f = dyn_cast<FloatAttr>(a))
        return f.getValue().bitcastToAPInt().getZExtValue();
      return std::nullopt;
    };
    Attribute value = c.getValue();
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      unsigned i = 0;
      if (isa<FloatType>(dense.getElementType())) {
        for (APFloat f : dense.getValues<APFloat>())
          p.constants[base + i++] = f.bitcastToAPInt().getZExtValue();
      } else if (dense.getElementType().isIntOrIndex()) {
        for (APInt v : dense.getValues<APInt>())
          p.constants[base + i++] =
              v.getZExtValue() &
              (t->bits >= 64 ? ~0ull : (1ull << t->bits) - 1);
      }
      if (i != t->lanes)
        return fail(op, "unsupported dense constant");
      return true;
    }
    std::optional<uint64_t> bits = bitsOf(value);
    if (!bits)
      return fail(op, "unsupported constant attribute");
    for (unsigned i = 0; i < t->lanes; ++i)
      p.constants[base + i] = *bits;
    return true;
  }

  /// log2 of an access's alignment: the op's, else the element's natural
  /// one (what the backends assume).
  static uint8_t alignLog2(std::optional<uint64_t> align, const Inst &in) {
    uint64_t a = align.value_or(0);
    if (!a)
      a = in.bits == 1 ? 1 : (in.bits + 7) / 8;
    return uint8_t(llvm::Log2_64(a));
  }

  uint32_t opIndex(Operation *op) {
    p.ops.push_back(op);
    return p.ops.size() - 1;
  }

  Inst &emit(Opc opc, Operation *op) {
    Inst in;
    in.opc = opc;
    in.op = opIndex(op);
    p.code.push_back(in);
    return p.code.back();
  }

  /// An instruction whose result type sets ek/bits/lanes.
  Inst *emitResult(Opc opc, Operation *op) {
    if (op->getNumResults() != 1) {
      fail(op, "expected one result");
      return nullptr;
    }
    Value r = op->getResult(0);
    if (!assign(r, op))
      return nullptr;
    TypeInfo t = *typeInfo(r.getType());
    Inst &in = emit(opc, op);
    in.res = slots[r];
    in.ek = t.ek, in.bits = t.bits, in.lanes = t.lanes,
    in.addrSpace = t.addrSpace;
    if (op->getNumOperands() > 0)
      in.a = slot(op->getOperand(0));
    if (op->getNumOperands() > 1)
      in.b = slot(op->getOperand(1));
    if (op->getNumOperands() > 2)
      in.c = slot(op->getOperand(2));
    if (op->getNumOperands() > 0) {
      if (std::optional<TypeInfo> s = info(op->getOperand(0), op)) {
        in.srcEk = s->ek, in.srcBits = s->bits, in.srcAddrSpace = s->addrSpace;
      } else {
        return nullptr;
      }
    }
    return &in;
  }

  /// aux record of a branch target: pc (fixed up later), n, then (src, dst,
  /// lanes) per successor operand.
  uint32_t target(Block *dest, OperandRange args) {
    uint32_t at = p.aux.size();
    p.aux.push_back(0);
    fixups.push_back({at, dest});
    p.aux.push_back(args.size());
    for (auto [v, a] : llvm::zip(args, dest->getArguments())) {
      p.aux.push_back(slot(v));
      p.aux.push_back(slots[a]);
      p.aux.push_back(typeInfo(a.getType())->lanes);
    }
    return at;
  }

  bool decodeOp(Operation *op) {
    StringRef name = op->getName().getStringRef();
    // Plain arithmetic, by name: one table for the many ops of one shape.
    std::optional<Opc> simple =
        llvm::StringSwitch<std::optional<Opc>>(name)
            .Case("llvm.add", Opc::Add)
            .Case("llvm.sub", Opc::Sub)
            .Case("llvm.mul", Opc::Mul)
            .Case("llvm.udiv", Opc::UDiv)
            .Case("llvm.sdiv", Opc::SDiv)
            .Case("llvm.urem", Opc::URem)
            .Case("llvm.srem", Opc::SRem)
            .Case("llvm.and", Opc::And)
            .Case("llvm.or", Opc::Or)
            .Case("llvm.xor", Opc::Xor)
            .Case("llvm.shl", Opc::Shl)
            .Case("llvm.lshr", Opc::LShr)
            .Case("llvm.ashr", Opc::AShr)
            .Case("llvm.fadd", Opc::FAdd)
            .Case("llvm.fsub", Opc::FSub)
            .Case("llvm.fmul", Opc::FMul)
            .Case("llvm.fdiv", Opc::FDiv)
            .Case("llvm.frem", Opc::FRem)
            .Case("llvm.fneg", Opc::FNeg)
            .Case("llvm.select", Opc::Select)
            .Case("llvm.sext", Opc::SExt)
            .Case("llvm.zext", Opc::ZExt)
            .Case("llvm.trunc", Opc::Trunc)
            .Case("llvm.fpext", Opc::FPExt)
            .Case("llvm.fptrunc", Opc::FPTrunc)
            .Case("llvm.sitofp", Opc::SIToFP)
            .Case("llvm.uitofp", Opc::UIToFP)
            .Case("llvm.fptosi", Opc::FPToSI)
            .Case("llvm.fptoui", Opc::FPToUI)
            .Case("llvm.bitcast", Opc::Bitcast)
            .Case("llvm.freeze", Opc::Copy)
            .Case("llvm.ptrtoint", Opc::PtrToInt)
            .Case("llvm.inttoptr", Opc::IntToPtr)
            .Case("llvm.addrspacecast", Opc::AddrSpaceCast)
            .Case("llvm.intr.maximum", Opc::FMax)
            .Case("llvm.intr.minimum", Opc::FMin)
            .Case("llvm.intr.maxnum", Opc::FMaxNum)
            .Case("llvm.intr.minnum", Opc::FMinNum)
            .Case("llvm.intr.smax", Opc::SMax)
            .Case("llvm.intr.smin", Opc::SMin)
            .Case("llvm.intr.umax", Opc::UMax)
            .Case("llvm.intr.umin", Opc::UMin)
            .Case("llvm.intr.fabs", Opc::FAbs)
            .Case("llvm.intr.fma", Opc::Fma)
            .Case("llvm.intr.fmuladd", Opc::Fma)
            .Case("llvm.intr.sqrt", Opc::Sqrt)
            .Case("llvm.intr.exp", Opc::Exp)
            .Case("llvm.intr.exp2", Opc::Exp2)
            .Case("llvm.intr.log", Opc::Log)
            .Case("llvm.intr.log2", Opc::Log2)
            .Case("llvm.intr.floor", Opc::Floor)
            .Case("llvm.intr.ceil", Opc::Ceil)
            .Case("llvm.intr.trunc", Opc::FTrunc)
            .Case("llvm.intr.round", Opc::Round)
            .Case("llvm.intr.copysign", Opc::CopySign)
            .Case("llvm.intr.ctpop", Opc::CtPop)
            .Case("nvvm.read.ptx.sreg.laneid", Opc::LaneId)
            .Case("nvvm.read.ptx.sreg.warpsize", Opc::WarpSize)
            .Case("rocdl.mbcnt.lo", Opc::MbcntLo)
            .Case("rocdl.mbcnt.hi", Opc::MbcntHi)
            .Case("rocdl.ds_bpermute", Opc::Bpermute)
            .Case("rocdl.readlane", Opc::ReadLane)
            .Case("rocdl.readfirstlane", Opc::ReadFirstLane)
            .Default(std::nullopt);
    if (simple) {
      Inst *in = emitResult(*simple, op);
      if (!in)
        return false;
      if (*simple == Opc::Bitcast || *simple == Opc::Copy)
        in->c = typeInfo(op->getOperand(0).getType())->lanes;
      if (*simple == Opc::Select)
        in->sub = isa<VectorType>(op->getOperand(0).getType());
      return true;
    }
    if (name == "llvm.intr.abs") {
      Inst *in = emitResult(Opc::Abs, op);
      return in != nullptr;
    }
    // Comparisons: the operands' type and the predicate.
    auto compare = [&](Opc opc, Value lhs, unsigned predicate) {
      Inst *in = emitResult(opc, op);
      if (!in)
        return false;
      TypeInfo t = *typeInfo(lhs.getType());
      in->ek = t.ek, in->bits = t.bits;
      in->sub = uint8_t(predicate);
      return true;
    };
    if (auto cmp = dyn_cast<LLVM::ICmpOp>(op))
      return compare(Opc::ICmp, cmp.getLhs(), unsigned(cmp.getPredicate()));
    if (auto cmp = dyn_cast<LLVM::FCmpOp>(op))
      return compare(Opc::FCmp, cmp.getLhs(), unsigned(cmp.getPredicate()));
    if (auto ex = dyn_cast<LLVM::ExtractElementOp>(op)) {
      Inst *in = emitResult(Opc::ExtractElement, op);
      if (!in)
        return false;
      in->c = typeInfo(ex.getVector().getType())->lanes;
      in->srcBits = typeInfo(ex.getPosition().getType())->bits;
      return true;
    }
    if (auto ins = dyn_cast<LLVM::InsertElementOp>(op)) {
      Inst *in = emitResult(Opc::InsertElement, op);
      if (!in)
        return false;
      in->a = slot(ins.getVector());
      in->b = slot(ins.getValue());
      in->c = slot(ins.getPosition());
      in->srcBits = typeInfo(ins.getPosition().getType())->bits;
      return true;
    }
    if (auto sh = dyn_cast<LLVM::ShuffleVectorOp>(op)) {
      Inst *in = emitResult(Opc::ShuffleVector, op);
      if (!in)
        return false;
      in->aux = p.aux.size();
      p.aux.push_back(typeInfo(sh.getV1().getType())->lanes);
      for (int32_t m : sh.getMask())
        p.aux.push_back(uint32_t(m));
      return true;
    }
    if (auto gep = dyn_cast<LLVM::GEPOp>(op))
      return decodeGEP(gep);
    if (auto load = dyn_cast<LLVM::LoadOp>(op)) {
      Inst *in = emitResult(Opc::Load, op);
      if (!in)
        return false;
      in->addrSpace = in->srcAddrSpace;
      if (in->ek == EK::Ptr)
        in->ek = EK::Int; // a loaded pointer is just its 64 bits
      if (in->bits == 1 && in->lanes > 1)
        return fail(op, "loads of i1 vectors are not supported");
      in->c = p.numSharedAccessOps++;
      in->sub = alignLog2(load.getAlignment(), *in);
      return true;
    }
    if (auto store = dyn_cast<LLVM::StoreOp>(op)) {
      std::optional<TypeInfo> v = info(store.getValue(), op);
      std::optional<TypeInfo> a = info(store.getAddr(), op);
      if (!v || !a)
        return false;
      if (v->bits == 1 && v->lanes > 1)
        return fail(op, "stores of i1 vectors are not supported");
      Inst &in = emit(Opc::Store, op);
      in.a = slot(store.getValue());
      in.b = slot(store.getAddr());
      in.ek = v->ek == EK::Ptr ? EK::Int : v->ek;
      in.bits = v->bits, in.lanes = v->lanes, in.addrSpace = a->addrSpace;
      in.c = p.numSharedAccessOps++;
      in.sub = alignLog2(store.getAlignment(), in);
      return true;
    }
    if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op))
      return decodeCallIntrinsic(call);
    if (auto br = dyn_cast<LLVM::BrOp>(op)) {
      Inst &in = emit(Opc::Br, op);
      uint32_t aux = target(br.getDest(), br.getDestOperands());
      p.code.back().aux = aux;
      (void)in;
      return true;
    }
    if (auto br = dyn_cast<LLVM::CondBrOp>(op)) {
      uint32_t t = target(br.getTrueDest(), br.getTrueDestOperands());
      uint32_t f = target(br.getFalseDest(), br.getFalseDestOperands());
      Inst &in = emit(Opc::CondBr, op);
      in.a = slot(br.getCondition());
      in.aux = t, in.c = f;
      return true;
    }
    if (auto sw = dyn_cast<LLVM::SwitchOp>(op))
      return decodeSwitch(sw);
    if (isa<LLVM::ReturnOp>(op)) {
      if (op->getNumOperands())
        return fail(op, "a kernel must not return a value");
      emit(Opc::Return, op);
      return true;
    }
    if (isa<LLVM::UnreachableOp>(op)) {
      emit(Opc::Unreachable, op);
      return true;
    }
    if (isa<LLVM::FenceOp>(op) || name == "llvm.intr.assume" ||
        name.starts_with("llvm.intr.lifetime.") ||
        name == "nvvm.fence.mbarrier.init" || name == "nvvm.fence.sc.cluster" ||
        name == "nvvm.memory.barrier") {
      emit(Opc::Nop, op);
      return true;
    }
    // setmaxnreg moves registers between warpgroups: the simulator has no
    // register file to move (nvvm.setmaxregister's verifier checks the
    // operand).
    if (isa<NVVM::SetMaxRegisterOp>(op)) {
      emit(Opc::Nop, op);
      return true;
    }
    if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op);
        asmOp && isWgmmaAsm(asmOp))
      return decodeWgmma(asmOp);
    if (auto ev = dyn_cast<LLVM::ExtractValueOp>(op)) {
      // Only the results of wgmma (a struct of scalars, one slot each).
      auto st = dyn_cast<LLVM::LLVMStructType>(ev.getContainer().getType());
      auto src = slots.find(ev.getContainer());
      if (!st || src == slots.end() || ev.getPosition().size() != 1)
        return fail(
            op,
            "the simulator supports llvm.extractvalue only of "
            "the results of wgmma.mma_async, ldmatrix, mma.sync, tcgen05.ld "
            "and operand fences");
      // Read the source slot before assign(): inserting may grow the map and
      // invalidate the iterator.
      uint32_t srcSlot = src->second + uint32_t(ev.getPosition()[0]);
      if (!assign(ev.getResult(), op))
        return false;
      Inst &in = emit(Opc::Copy, op);
      in.res = slots[ev.getResult()];
      in.a = srcSlot;
      TypeInfo t = *typeInfo(ev.getResult().getType());
      in.ek = t.ek, in.bits = t.bits, in.lanes = 1, in.c = 1;
      return true;
    }
    if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op);
        asmOp && (StringRef(asmOp.getAsmString()).trim().empty() ||
                  StringRef(asmOp.getAsmString()).trim() ==
                      "tcgen05.wait::ld.sync.aligned;"))
      // tcgen05.ld completes at once in the simulator: its wait (kcc ties
      // the loaded registers through it) only keeps them in place.
      return decodeOperandFence(asmOp);
    if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op);
        asmOp && StringRef(asmOp.getAsmString()).contains("tcgen05."))
      return decodeTcgen05(asmOp);
    if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op))
      return fail(op, "the simulator does not implement inline assembly '" +
                          asmOp.getAsmString() + "'");
    if (name.starts_with("nvvm.") || name.starts_with("rocdl."))
      return decodeTargetOp(op, name);
    return fail(op, "the simulator does not implement '" + name + "'");
  }

  bool decodeGEP(LLVM::GEPOp gep) {
    Operation *op = gep.getOperation();
    Inst *in = emitResult(Opc::GEP, op);
    if (!in)
      return false;
    if (in->lanes != 1)
      return fail(op, "vector getelementptr is not supported");
    // Offset = constant part + sum(dynamic index * scale), computed here once.
    int64_t constant = 0;
    std::vector<std::tuple<uint32_t, int64_t, unsigned>> dynamic;
    Type current = gep.getElemType();
    auto dyn = gep.getDynamicIndices();
    unsigned nextDyn = 0;
    ArrayRef<int32_t> raw = gep.getRawConstantIndices();
    for (size_t i = 0; i < raw.size(); ++i) {
      bool isDynamic = raw[i] == LLVM::GEPOp::kDynamicIndex;
      if (i == 0) {
        std::optional<uint64_t> size = storeSize(current);
        if (!size)
          return fail(op, "getelementptr over an unsized type");
        if (isDynamic)
          dynamic.emplace_back(slot(dyn[nextDyn]), int64_t(*size),
                               typeInfo(dyn[nextDyn].getType())->bits),
              ++nextDyn;
        else
          constant += int64_t(raw[i]) * int64_t(*size);
        continue;
      }
      if (auto s = dyn_cast<LLVM::LLVMStructType>(current)) {
        if (isDynamic)
          return fail(op, "dynamic struct index");
        uint64_t offset = 0, align = 1;
        for (int32_t f = 0; f <= raw[i]; ++f) {
          uint64_t fa = 1;
          std::optional<uint64_t> fs = storeSize(s.getBody()[f], &fa);
          if (!fs)
            return fail(op, "unsized struct field");
          if (!s.isPacked())
            offset = (offset + fa - 1) / fa * fa;
          if (f < raw[i])
            offset += *fs;
          align = std::max(align, fa);
        }
        constant += offset;
        current = s.getBody()[raw[i]];
        continue;
      }
      Type elem;
      if (auto a = dyn_cast<LLVM::LLVMArrayType>(current))
        elem = a.getElementType();
      else if (auto v = dyn_cast<VectorType>(current))
        elem = v.getElementType();
      else
        return fail(op, "getelementptr index into a non-aggregate type");
      std::optional<uint64_t> size = storeSize(elem);
      if (!size)
        return fail(op, "getelementptr over an unsized type");
      if (isDynamic)
        dynamic.emplace_back(slot(dyn[nextDyn]), int64_t(*size),
                             typeInfo(dyn[nextDyn].getType())->bits),
            ++nextDyn;
      else
        constant += int64_t(raw[i]) * int64_t(*size);
      current = elem;
    }
    Inst &g = p.code.back();
    g.a = slot(gep.getBase());
    g.aux = p.aux.size();
    p.aux.push_back(uint32_t(uint64_t(constant)));
    p.aux.push_back(uint32_t(uint64_t(constant) >> 32));
    p.aux.push_back(dynamic.size());
    for (auto [s, scale, bits] : dynamic) {
      p.aux.push_back(s);
      p.aux.push_back(uint32_t(uint64_t(scale)));
      p.aux.push_back(uint32_t(uint64_t(scale) >> 32));
      p.aux.push_back(bits);
    }
    return true;
  }

  bool decodeSwitch(LLVM::SwitchOp sw) {
    Operation *op = sw.getOperation();
    std::vector<uint32_t> targets;
    uint32_t def = target(sw.getDefaultDestination(), sw.getDefaultOperands());
    auto values = sw.getCaseValues();
    if (!values && !sw.getCaseDestinations().empty())
      return fail(op, "switch without case values");
    std::vector<uint64_t> caseValues;
    if (values)
      for (APInt v : values->getValues<APInt>())
        caseValues.push_back(v.getZExtValue());
    for (auto [i, dest] : llvm::enumerate(sw.getCaseDestinations()))
      targets.push_back(target(dest, sw.getCaseOperands(i)));
    Inst &in = emit(Opc::Switch, op);
    in.a = slot(sw.getValue());
    in.bits = typeInfo(sw.getValue().getType())->bits;
    in.aux = p.aux.size();
    p.aux.push_back(def);
    p.aux.push_back(targets.size());
    for (auto [v, t] : llvm::zip(caseValues, targets)) {
      p.aux.push_back(uint32_t(v));
      p.aux.push_back(uint32_t(v >> 32));
      p.aux.push_back(t);
    }
    return true;
  }

  bool decodeCallIntrinsic(LLVM::CallIntrinsicOp call) {
    Operation *op = call.getOperation();
    StringRef name = call.getIntrin();
    // bar.sync id, count (warp-specialized consumers' named barrier).
    if (name == "llvm.nvvm.barrier.cta.sync.aligned.count" ||
        name == "llvm.nvvm.barrier.cta.sync.count") {
      if (call.getArgs().size() != 2)
        return fail(op, "'" + name + "' takes a barrier id and a count");
      Inst &in = emit(Opc::Barrier, op);
      in.a = slot(call.getArgs()[0]);
      in.b = slot(call.getArgs()[1]);
      return true;
    }
    std::optional<Opc> opc =
        llvm::StringSwitch<std::optional<Opc>>(name)
            .Cases({"llvm.nvvm.ex2.approx.f32", "llvm.nvvm.ex2.approx.ftz.f32",
                    "llvm.amdgcn.exp2.f32"},
                   Opc::Exp2)
            .Cases({"llvm.nvvm.rsqrt.approx.f", "llvm.nvvm.rsqrt.approx.ftz.f",
                    "llvm.amdgcn.rsq.f32"},
                   Opc::Rsqrt)
            .Cases({"llvm.nvvm.lg2.approx.f", "llvm.amdgcn.log.f32"}, Opc::Log2)
            .Case("llvm.amdgcn.dispatch.ptr", Opc::DispatchPtr)
            .Default(std::nullopt);
    if (!opc)
      return fail(op, "the simulator does not implement the intrinsic '" +
                          name + "'");
    return emitResult(*opc, op) != nullptr;
  }

  bool decodeTargetOp(Operation *op, StringRef name) {
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
    if (auto ld = dyn_cast<NVVM::LdMatrixOp>(op))
      return decodeLdMatrix(ld);
    if (auto mma = dyn_cast<NVVM::MmaOp>(op))
      return decodeMmaSync(mma);
    if (name == "rocdl.mfma.f32.16x16x16f16" ||
        name == "rocdl.mfma.f32.16x16x16bf16.1k")
      return decodeMfma(op, name.ends_with("1k"));
    if (name.starts_with("rocdl.mfma."))
      return fail(op, "the simulator implements the MFMA instructions "
                      "v_mfma_f32_16x16x16f16 and v_mfma_f32_16x16x16bf16_1k "
                      "only");
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
  bool decodeAsyncOp(Operation *op, StringRef name) {
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
      if (load.getPredicate() || load.getMulticastMask() ||
          !load.getIm2colOffsets().empty() ||
          load.getMode() != NVVM::TMALoadMode::TILE)
        return fail(op, "only tile-mode, unpredicated, non-multicast TMA "
                        "loads are supported");
      Inst &in = emit(Opc::TmaLoad, op);
      in.a = slot(load.getDstMem());
      in.b = slot(load.getTmaDescriptor());
      in.c = slot(load.getMbar());
      in.srcAddrSpace = typeInfo(load.getDstMem().getType())->addrSpace;
      in.aux = p.aux.size();
      p.aux.push_back(load.getCoordinates().size());
      for (Value v : load.getCoordinates())
        p.aux.push_back(slot(v));
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
                   fence.getKind() == NVVM::ProxyKind::async_shared
               ? Opc::FenceProxyAsync
               : Opc::Nop,
           op);
      return true;
    }
    return fail(op, "the simulator does not implement '" + name + "'");
  }
};

} // namespace

bool kcc::sim::decodeFunction(LLVM::LLVMFuncOp func, Program &program,
                              DecodeError &error) {
  error.loc = func.getLoc();
  Decoder d(func, program, error);
  return d.run();
}
