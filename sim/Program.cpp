//===- Program.cpp - decode an llvm.func for the SIMT simulator -----------===//
//
// decodeFunction() and the core of the Decoder (Decoder.h): register slots,
// constants and the shared-memory layout, the instruction record of each op,
// and the LLVM dialect (arithmetic and casts by a table of names, compares,
// vectors, getelementptr, loads and stores, branches and switches, the
// intrinsics called by name). The NVVM and ROCDL ops and kcc's inline assembly
// are decoded in DecodeTargetOps.cpp.
//
//===----------------------------------------------------------------------===//
#include "sim/Program.h"
#include "sim/Decoder.h"

#include "llvm/ADT/SmallBitVector.h"

#include "ir/Dialect.h"
#include "targets/PtxInlineAsm.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/StringSwitch.h"

using namespace mlir;
using namespace kcc::sim;
using namespace kcc::sim::detail;

/// Scalars, pointers and vectors of them; nothing else lives in registers.
std::optional<TypeInfo> kcc::sim::detail::typeInfo(Type t) {
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

namespace {

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

/// Casts that leave every element's bits as they are (Execute.cpp copies
/// them unchanged): a register rename.
bool isRenaming(Opc opc, Operation *op) {
  std::optional<TypeInfo> in = typeInfo(op->getOperand(0).getType());
  std::optional<TypeInfo> out = typeInfo(op->getResult(0).getType());
  if (!in || !out || in->lanes != out->lanes)
    return false;
  switch (opc) {
  case Opc::IntToPtr:
  case Opc::ZExt:
  case Opc::Copy:
    return true;
  case Opc::Bitcast:
    return in->bits == out->bits;
  case Opc::PtrToInt:
    return out->bits == 64;
  case Opc::AddrSpaceCast:
    // Shared <-> generic moves through a window; shared::cluster to
    // shared::cta checks that the address is the CTA's own. shared::cta to
    // shared::cluster keeps the bits (a CTA's own address).
    return (in->addrSpace == 3 || in->addrSpace == 7) ==
               (out->addrSpace == 3 || out->addrSpace == 7) &&
           !(in->addrSpace == 7 && out->addrSpace == 3);
  default:
    return false;
  }
}

} // namespace

bool Decoder::run() {
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

bool Decoder::isConstantLike(Operation *op) {
  return isa<LLVM::ConstantOp, LLVM::PoisonOp, LLVM::UndefOp, LLVM::ZeroOp,
             LLVM::AddressOfOp>(op);
}

std::optional<TypeInfo> Decoder::info(Value v, Operation *op) {
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

bool Decoder::assign(Value v, Operation *where) {
  std::optional<TypeInfo> t = info(v, where);
  if (!t)
    return false;
  slots[v] = nextSlot;
  nextSlot += t->lanes;
  return true;
}

bool Decoder::layoutShared() {
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

bool Decoder::decodeConstant(Operation *op) {
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
            v.getZExtValue() & (t->bits >= 64 ? ~0ull : (1ull << t->bits) - 1);
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

/// The block whose execution writes v's slots again (null: none does, as
/// for constants and the entry block's values, which run once).
Block *Decoder::rewrittenIn(Value v) {
  if (auto it = renames.find(v); it != renames.end())
    return it->second;
  Block *b = nullptr;
  if (Operation *def = v.getDefiningOp()) {
    if (isConstantLike(def))
      return nullptr;
    b = def->getBlock();
  } else {
    b = cast<BlockArgument>(v).getOwner();
  }
  return b->isEntryBlock() ? nullptr : b;
}

/// Lets `result` name `source`'s slots from `offset` instead of copying
/// them (extracting a constant element, a bitcast, a pointer cast: moves
/// that the GPU's register allocator makes free). Only where the source's
/// slots cannot be written again while `result` is live: the source is
/// rewritten in no block, or only in the block defining `result`, which
/// then redefines `result` too before anything after that block reads it.
bool Decoder::rename(Value result, Value source, unsigned offset) {
  Operation *def = result.getDefiningOp();
  Block *at = rewrittenIn(source);
  auto src = slots.find(source);
  if ((at && at != def->getBlock()) || src == slots.end() ||
      accReaders.contains(def))
    return false;
  slots[result] = src->second + offset;
  renames[result] = at;
  return true;
}

/// insertelement into a vector that nothing else reads writes its element
/// in place: building a vector of N elements is N stores, not N copies of
/// the vector. The vector must own its slots (no rename of another value)
/// and be made in the same block, so every execution of the insert follows
/// one of the vector's definition.
bool Decoder::insertInPlace(LLVM::InsertElementOp op) {
  Value vec = op.getVector();
  Operation *def = vec.getDefiningOp();
  Block *made = def ? def->getBlock() : cast<BlockArgument>(vec).getOwner();
  if (!vec.hasOneUse() || made != op->getBlock() || renames.contains(vec) ||
      (def && isConstantLike(def)) || !slots.count(vec))
    return false;
  slots[op.getResult()] = slots[vec];
  return true;
}

namespace {
std::optional<uint64_t> constantIndex(Value v) {
  if (auto c = v.getDefiningOp<LLVM::ConstantOp>())
    if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
      return i.getValue().getZExtValue();
  return std::nullopt;
}
} // namespace

/// Whether nothing reads the elements that `op` would copy from a constant
/// vector: the in-place inserts after it write every element, or a splat
/// shufflevector reads only the ones written (the idioms of LLVM's vector
/// lowering). Then `op` writes its element into fresh slots without copying
/// the constant's.
bool Decoder::constantLanesUnread(LLVM::InsertElementOp op) {
  Operation *def = op.getVector().getDefiningOp();
  if (!def || !isConstantLike(def))
    return false;
  unsigned lanes = typeInfo(op.getType())->lanes;
  llvm::SmallBitVector written(lanes);
  Value cur;
  for (LLVM::InsertElementOp ins = op; ins;) {
    std::optional<uint64_t> i = constantIndex(ins.getPosition());
    if (!i || *i >= lanes)
      return false;
    written.set(*i);
    cur = ins.getResult();
    ins = nullptr;
    if (cur.hasOneUse())
      if (auto next = dyn_cast<LLVM::InsertElementOp>(*cur.getUsers().begin());
          next && next.getVector() == cur && next->getBlock() == op->getBlock())
        ins = next;
  }
  if (written.all())
    return true;
  if (!cur.hasOneUse())
    return false;
  auto sh = dyn_cast<LLVM::ShuffleVectorOp>(*cur.getUsers().begin());
  if (!sh)
    return false;
  for (int32_t m : sh.getMask()) {
    if (m < 0)
      continue;
    if (unsigned(m) < lanes ? sh.getV1() != cur || !written.test(m)
                            : sh.getV2() != cur || !written.test(m - lanes))
      return false;
  }
  return true;
}

/// log2 of an access's alignment: the op's, else the element's natural
/// one (what the backends assume).
uint8_t Decoder::alignLog2(std::optional<uint64_t> align, const Inst &in) {
  uint64_t a = align.value_or(0);
  if (!a)
    a = in.bits == 1 ? 1 : (in.bits + 7) / 8;
  return uint8_t(llvm::Log2_64(a));
}

/// An instruction whose result type sets ek/bits/lanes.
Inst *Decoder::emitResult(Opc opc, Operation *op) {
  if (op->getNumResults() != 1) {
    fail(op, "expected one result");
    return nullptr;
  }
  Value r = op->getResult(0);
  if (!slots.count(r) && !assign(r, op))
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
uint32_t Decoder::target(Block *dest, OperandRange args) {
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

bool Decoder::decodeOp(Operation *op) {
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
    if (isRenaming(*simple, op) &&
        rename(op->getResult(0), op->getOperand(0), 0))
      return true;
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
    unsigned lanes = typeInfo(ex.getVector().getType())->lanes;
    if (auto c = ex.getPosition().getDefiningOp<LLVM::ConstantOp>())
      if (auto i = dyn_cast<IntegerAttr>(c.getValue());
          i && i.getValue().ult(lanes) &&
          rename(ex.getResult(), ex.getVector(), i.getValue().getZExtValue()))
        return true;
    Inst *in = emitResult(Opc::ExtractElement, op);
    if (!in)
      return false;
    in->c = typeInfo(ex.getVector().getType())->lanes;
    in->srcBits = typeInfo(ex.getPosition().getType())->bits;
    return true;
  }
  if (auto ins = dyn_cast<LLVM::InsertElementOp>(op)) {
    bool fresh = !insertInPlace(ins) && constantLanesUnread(ins);
    Inst *in = emitResult(Opc::InsertElement, op);
    if (!in)
      return false;
    in->a = fresh ? in->res : slot(ins.getVector());
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
  if (auto rmw = dyn_cast<LLVM::AtomicRMWOp>(op)) {
    std::optional<AtomicOp> kind;
    switch (rmw.getBinOp()) {
    case LLVM::AtomicBinOp::add:
      kind = AtomicOp::Add;
      break;
    case LLVM::AtomicBinOp::fadd:
      kind = AtomicOp::FAdd;
      break;
    case LLVM::AtomicBinOp::min:
      kind = AtomicOp::SMin;
      break;
    case LLVM::AtomicBinOp::max:
      kind = AtomicOp::SMax;
      break;
    case LLVM::AtomicBinOp::fminimum:
      kind = AtomicOp::FMinimum;
      break;
    case LLVM::AtomicBinOp::fmaximum:
      kind = AtomicOp::FMaximum;
      break;
    case LLVM::AtomicBinOp::xchg:
      kind = AtomicOp::Xchg;
      break;
    default:
      break;
    }
    if (!kind)
      return fail(op, "the simulator implements llvm.atomicrmw add, fadd, "
                      "min, max, fminimum, fmaximum and xchg only");
    Inst *in = emitResult(Opc::AtomicRMW, op);
    if (!in)
      return false;
    if (in->lanes != 1)
      return fail(op, "vector atomics are not supported");
    in->addrSpace = in->srcAddrSpace;
    in->sub = uint8_t(*kind);
    p.globalAtomics |= in->addrSpace != 3 && in->addrSpace != 7;
    return true;
  }
  if (auto cas = dyn_cast<LLVM::AtomicCmpXchgOp>(op)) {
    std::optional<TypeInfo> v = info(cas.getVal(), op);
    std::optional<TypeInfo> a = info(cas.getPtr(), op);
    if (!v || !a)
      return false;
    if (v->ek != EK::Int || v->lanes != 1)
      return fail(op, "the simulator implements llvm.cmpxchg of integers only");
    // The {old, success} struct: one slot each (llvm.extractvalue reads them).
    slots[cas.getRes()] = nextSlot;
    nextSlot += 2;
    Inst &in = emit(Opc::CmpXchg, op);
    in.res = slots[cas.getRes()];
    in.a = slot(cas.getPtr());
    in.b = slot(cas.getCmp());
    in.c = slot(cas.getVal());
    in.ek = EK::Int, in.bits = v->bits, in.addrSpace = a->addrSpace;
    p.globalAtomics |= a->addrSpace != 3 && a->addrSpace != 7;
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
  if (auto asmOp = dyn_cast<LLVM::InlineAsmOp>(op); asmOp && isWgmmaAsm(asmOp))
    return decodeWgmma(asmOp);
  if (auto ev = dyn_cast<LLVM::ExtractValueOp>(op)) {
    // Only the results of wgmma (a struct of scalars, one slot each).
    auto st = dyn_cast<LLVM::LLVMStructType>(ev.getContainer().getType());
    auto src = slots.find(ev.getContainer());
    if (!st || src == slots.end() || ev.getPosition().size() != 1)
      return fail(
          op, "the simulator supports llvm.extractvalue only of "
              "the results of wgmma.mma_async, ldmatrix, mma.sync, tcgen05.ld, "
              "cmpxchg and operand fences");
    // Read the source slot before assign(): inserting may grow the map and
    // invalidate the iterator.
    uint32_t srcSlot = src->second + uint32_t(ev.getPosition()[0]);
    if (rename(ev.getResult(), ev.getContainer(), ev.getPosition()[0]))
      return true;
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
      asmOp && (kcc::ptx::match(kcc::ptx::kOperandFence,
                                StringRef(asmOp.getAsmString()).trim()) ||
                kcc::ptx::match(kcc::ptx::kTcgen05WaitLd,
                                StringRef(asmOp.getAsmString()).trim())))
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

bool Decoder::decodeGEP(LLVM::GEPOp gep) {
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

bool Decoder::decodeSwitch(LLVM::SwitchOp sw) {
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

bool Decoder::decodeCallIntrinsic(LLVM::CallIntrinsicOp call) {
  Operation *op = call.getOperation();
  StringRef name = call.getIntrin();
  // bar.sync id, count (warp-specialized consumers' named barrier) and
  // bar.arrive id, count, which counts toward it without waiting (consumer
  // warpgroups passing each other the turn).
  bool arrive = name == "llvm.nvvm.barrier.cta.arrive.aligned.count" ||
                name == "llvm.nvvm.barrier.cta.arrive.count";
  if (arrive || name == "llvm.nvvm.barrier.cta.sync.aligned.count" ||
      name == "llvm.nvvm.barrier.cta.sync.count") {
    if (call.getArgs().size() != 2)
      return fail(op, "'" + name + "' takes a barrier id and a count");
    Inst &in = emit(Opc::Barrier, op);
    in.a = slot(call.getArgs()[0]);
    in.b = slot(call.getArgs()[1]);
    in.sub = arrive;
    return true;
  }
  if (std::optional<bool> done = decodeClusterOp(op, name))
    return *done;
  std::optional<Opc> opc =
      llvm::StringSwitch<std::optional<Opc>>(name)
          .Cases({"llvm.nvvm.ex2.approx.f32", "llvm.nvvm.ex2.approx.ftz.f32",
                  "llvm.nvvm.ex2.approx.ftz.f", "llvm.amdgcn.exp2.f32"},
                 Opc::Exp2)
          .Cases({"llvm.nvvm.rsqrt.approx.f", "llvm.nvvm.rsqrt.approx.ftz.f",
                  "llvm.amdgcn.rsq.f32"},
                 Opc::Rsqrt)
          .Cases({"llvm.nvvm.rcp.approx.ftz.f", "llvm.amdgcn.rcp.f32"},
                 Opc::Rcp)
          .Cases({"llvm.nvvm.lg2.approx.f", "llvm.amdgcn.log.f32"}, Opc::Log2)
          .Case("llvm.amdgcn.dispatch.ptr", Opc::DispatchPtr)
          .Default(std::nullopt);
  if (!opc)
    return fail(op, "the simulator does not implement the intrinsic '" + name +
                        "'");
  return emitResult(*opc, op) != nullptr;
}

bool kcc::sim::decodeFunction(LLVM::LLVMFuncOp func, Program &program,
                              DecodeError &error) {
  error.loc = func.getLoc();
  Decoder d(func, program, error);
  return d.run();
}
