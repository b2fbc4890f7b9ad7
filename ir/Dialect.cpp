//===- Dialect.cpp - kcc tile IR dialect ------------------------------------===//

#include "ir/Dialect.h"
#include "ir/ElementTypes.h"
#include "ir/SourceLocation.h"
#include "ir/TileCoords.h"

#include "targets/TmemRules.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <climits>

using namespace mlir;
using namespace kcc;

#include "ir/KccDialect.cpp.inc"
#include "ir/KccEnums.cpp.inc"
#define GET_TYPEDEF_CLASSES
#include "ir/KccTypes.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "ir/KccAttrs.cpp.inc"
#define GET_OP_CLASSES
#include "ir/KccOps.cpp.inc"

void KccDialect::initialize() {
  registerTypes();
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "ir/KccOps.cpp.inc"
      >();
}

void KccDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ir/KccTypes.cpp.inc"
      >();
}

void KccDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ir/KccAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type kcc::getPointeeLike(Type ptrLike) {
  if (auto tensor = dyn_cast<RankedTensorType>(ptrLike)) {
    auto ptr = dyn_cast<PtrType>(tensor.getElementType());
    if (!ptr)
      return Type();
    return RankedTensorType::get(tensor.getShape(), ptr.getPointeeType(),
                                 tensor.getEncoding());
  }
  if (auto ptr = dyn_cast<PtrType>(ptrLike))
    return ptr.getPointeeType();
  return Type();
}

Type kcc::getI1Like(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return RankedTensorType::get(tensor.getShape(), i1, tensor.getEncoding());
  return i1;
}

int64_t kcc::getNumElements(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.getNumElements();
  return 1;
}

BlockedLayoutAttr kcc::getBlockedLayout(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return dyn_cast_or_null<BlockedLayoutAttr>(tensor.getEncoding());
  return {};
}

//===----------------------------------------------------------------------===//
// BlockedLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned vec, unsigned threads, unsigned warp) {
  if (!llvm::isPowerOf2_32(vec) || vec > 16)
    return emitError() << "vec must be a power of two <= 16, got " << vec;
  if (!llvm::isPowerOf2_32(warp) || (warp != 32 && warp != 64))
    return emitError() << "warp must be 32 or 64 lanes, got " << warp;
  if (threads % warp != 0 || threads == 0 || threads > 1024)
    return emitError() << "threads must be a positive multiple of the warp "
                          "size and at most 1024, got "
                       << threads;
  return success();
}

unsigned BlockedLayoutAttr::getEffectiveVec(int64_t numElements) const {
  unsigned vec = getVec();
  while (vec > 1 && numElements % vec != 0)
    vec /= 2;
  return vec;
}

unsigned BlockedLayoutAttr::getElemsPerThread(int64_t numElements) const {
  unsigned vec = getEffectiveVec(numElements);
  int64_t chunks = numElements / vec;
  int64_t chunksPerThread = (chunks + getThreads() - 1) / getThreads();
  // Saturate: a huge tile must not wrap around to a small count that passes
  // a register budget check.
  return static_cast<unsigned>(
      std::min<int64_t>(chunksPerThread * vec, UINT_MAX));
}

//===----------------------------------------------------------------------===//
// WgmmaAccLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
WgmmaAccLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           unsigned warpgroups) {
  if (warpgroups == 0 || warpgroups > 8)
    return emitError() << "warpgroups must be 1-8, got " << warpgroups;
  return success();
}

unsigned WgmmaAccLayoutAttr::getElemsPerThread(ArrayRef<int64_t> shape) const {
  int64_t blocks = shape[0] / 64;
  int64_t mine = (blocks + getWarpgroups() - 1) / getWarpgroups();
  // A row vector ([M] or [M, 1]): the thread's two rows of each block.
  int64_t perBlock = isWgmmaRowSlice(shape) ? 2 : shape[1] / 2;
  return static_cast<unsigned>(std::min<int64_t>(mine * perBlock, UINT_MAX));
}

//===----------------------------------------------------------------------===//
// MfmaAccLayoutAttr
//===----------------------------------------------------------------------===//

LogicalResult
MfmaAccLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned waves) {
  if (waves == 0 || waves > 16)
    return emitError() << "waves must be 1-16, got " << waves;
  return success();
}

unsigned MfmaAccLayoutAttr::getElemsPerThread(ArrayRef<int64_t> shape) const {
  int64_t slabs = shape[0] / 16;
  int64_t mine = (slabs + getWaves() - 1) / getWaves();
  return static_cast<unsigned>(
      std::min<int64_t>(mine * (shape[1] / 4), UINT_MAX));
}

//===----------------------------------------------------------------------===//
// TmemAccLayoutAttr and TmemType
//===----------------------------------------------------------------------===//

LogicalResult
TmemAccLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          unsigned warpgroups) {
  if (warpgroups == 0 || warpgroups > 4)
    return emitError() << "warpgroups must be 1-4, got " << warpgroups;
  return success();
}

unsigned TmemAccLayoutAttr::getElemsPerThread(ArrayRef<int64_t> shape) const {
  return static_cast<unsigned>(shape[1] / getWarpgroups());
}

LogicalResult TmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               unsigned columns) {
  if (llvm::Error e = checkTmemAlloc(columns))
    return emitError() << llvm::toString(std::move(e));
  return success();
}

//===----------------------------------------------------------------------===//
// Attribute verification on kernels and their arguments
//===----------------------------------------------------------------------===//

static bool isPowerOfTwoIntAttr(Attribute attr) {
  auto intAttr = dyn_cast<IntegerAttr>(attr);
  return intAttr && intAttr.getInt() > 0 &&
         llvm::isPowerOf2_64(static_cast<uint64_t>(intAttr.getInt()));
}

LogicalResult KccDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  Type argType = op->getRegion(regionIndex).getArgument(argIndex).getType();
  if (attr.getName() == kAlignAttr) {
    if (!isa<PtrType>(argType))
      return op->emitError() << kAlignAttr << " applies to pointer arguments";
    if (!isPowerOfTwoIntAttr(attr.getValue()))
      return op->emitError() << kAlignAttr << " must be a power of two";
    return success();
  }
  if (attr.getName() == kDivisibilityAttr) {
    if (!argType.isInteger() || argType.isInteger(1))
      return op->emitError()
             << kDivisibilityAttr << " applies to integer arguments";
    auto intAttr = dyn_cast<IntegerAttr>(attr.getValue());
    if (!intAttr || intAttr.getInt() <= 0)
      return op->emitError() << kDivisibilityAttr << " must be positive";
    return success();
  }
  if (attr.getName() == kTensorMapOfAttr) {
    auto index = dyn_cast<IntegerAttr>(attr.getValue());
    Region &region = op->getRegion(regionIndex);
    if (!isa<TensorMapType>(argType) || !index || index.getInt() < 0 ||
        index.getInt() >= int64_t(region.getNumArguments()) ||
        !isa<PtrType>(region.getArgument(index.getInt()).getType()))
      return op->emitError()
             << kTensorMapOfAttr
             << " applies to tensormap arguments and names a pointer argument";
    return success();
  }
  if (attr.getName() == kTensorMapShapeAttr) {
    auto shape = dyn_cast<ArrayAttr>(attr.getValue());
    Region &region = op->getRegion(regionIndex);
    auto valid = [&](Attribute a) {
      auto i = dyn_cast<IntegerAttr>(a);
      if (i && i.getType().isIndex())
        return i.getInt() >= 0 &&
               i.getInt() < int64_t(region.getNumArguments()) &&
               region.getArgument(i.getInt()).getType().isInteger();
      return i && i.getType().isInteger(32);
    };
    auto map = dyn_cast<TensorMapType>(argType);
    if (!map || !shape ||
        shape.size() != 2 * map.getBox().size() - 1 ||
        !llvm::all_of(shape, valid))
      return op->emitError()
             << kTensorMapShapeAttr
             << " applies to tensormap arguments: the sizes then row strides, "
                "each an integer argument's number (index) or an i32 constant";
    return success();
  }
  if (attr.getName() == kTensorRankAttr) {
    auto rank = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<PtrType>(argType) || !rank || rank.getInt() < 1 ||
        rank.getInt() > 3)
      return op->emitError()
             << kTensorRankAttr << " (1, 2 or 3) applies to pointer arguments";
    return success();
  }
  return op->emitError() << "unknown kcc argument attribute " << attr.getName();
}

/// `attr` is of kind AttrT, else an error naming it and the kind (`what`).
template <typename AttrT>
static LogicalResult expectKind(Operation *op, NamedAttribute attr,
                                StringRef what) {
  if (isa<AttrT>(attr.getValue()))
    return success();
  return op->emitError() << attr.getName().strref() << " must be " << what;
}

LogicalResult KccDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  if (name == kKernelAttr) {
    auto func = dyn_cast<func::FuncOp>(op);
    if (!func)
      return op->emitError() << kKernelAttr << " applies to func.func";
    if (func.getNumResults() != 0)
      return op->emitError() << "a kernel returns no values";
    return success();
  }
  if (name == kGridAttr) {
    auto grid = dyn_cast<ArrayAttr>(attr.getValue());
    if (!grid || grid.size() != 3 ||
        !llvm::all_of(grid, [](Attribute a) { return isa<StringAttr>(a); }))
      return op->emitError()
             << kGridAttr << " must be an array of three C expressions";
    return success();
  }
  if (name == kCoverageAttr) {
    auto entries = dyn_cast<ArrayAttr>(attr.getValue());
    bool ok = entries && llvm::all_of(entries, [](Attribute a) {
                auto d = dyn_cast<DictionaryAttr>(a);
                return d && d.getAs<StringAttr>("tensor") &&
                       (d.getAs<StringAttr>("unproven") ||
                        (d.getAs<IntegerAttr>("stores") &&
                         !d.get("guard") == !d.getAs<StringAttr>("when")));
              });
    if (!ok)
      return op->emitError()
             << kCoverageAttr
             << " must be an array of {tensor, stores[, guard, when]} or "
                "{tensor, unproven}";
    return success();
  }
  if (name == kNumWarpsAttr)
    return isPowerOfTwoIntAttr(attr.getValue())
               ? success()
               : op->emitError() << kNumWarpsAttr << " must be a power of two";
  if (name == kSpecializationAttr)
    return expectKind<DictionaryAttr>(op, attr, "a dictionary");
  if (name == kArgNamesAttr || name == kConstantNamesAttr)
    return expectKind<ArrayAttr>(op, attr, "an array");
  if (name == kVariantOfAttr) {
    auto groups = dyn_cast<DictionaryAttr>(attr.getValue());
    bool ok = groups && llvm::all_of(groups, [](NamedAttribute g) {
                auto open = dyn_cast<ArrayAttr>(g.getValue());
                return open && !open.empty() &&
                       llvm::all_of(open, llvm::IsaPred<StringAttr>);
              });
    return ok ? success()
              : op->emitError() << kVariantOfAttr
                                << " must be a dictionary of launch name = "
                                   "[constant names]";
  }
  if (name == kRequiresAttr) {
    auto list = dyn_cast<ArrayAttr>(attr.getValue());
    bool ok = list && llvm::all_of(list, [](Attribute a) {
                auto d = dyn_cast<DictionaryAttr>(a);
                return d && d.getAs<StringAttr>("guard") &&
                       d.getAs<StringAttr>("when") && d.getAs<StringAttr>("at");
              });
    return ok ? success()
              : op->emitError() << kRequiresAttr
                                << " must be an array of {guard, when, at}";
  }
  if (name == kVariantOnlyAttr)
    return expectKind<UnitAttr>(op, attr, "a unit attribute");
  if (name == kAccessWidthAttr)
    return isPowerOfTwoIntAttr(attr.getValue())
               ? success()
               : op->emitError() << kAccessWidthAttr
                                 << " must be a power of two";
  if (name == kPersistentTilesAttr) {
    // An scf.for over i32 whose first iter_arg (i32) counts the tiles
    // (kcc-rasterize-programs); the pipelines rely on that shape.
    Region *body = op->getNumRegions() == 1 ? &op->getRegion(0) : nullptr;
    bool ok = isa<UnitAttr>(attr.getValue()) &&
              op->getName().getStringRef() == "scf.for" && body &&
              !body->empty() && body->front().getNumArguments() >= 2 &&
              body->front().getArgument(0).getType().isInteger(32) &&
              body->front().getArgument(1).getType().isInteger(32);
    return ok ? success()
              : op->emitError()
                    << kPersistentTilesAttr
                    << " applies to an scf.for over i32 whose first "
                       "iter_arg is an i32 tile count";
  }
  if (name == kPairedTilesAttr)
    return isa<StringAttr>(attr.getValue()) && op->hasAttr(kPersistentTilesAttr)
               ? success()
               : op->emitError() << kPairedTilesAttr
                                 << " is a string on a persistent kernel's "
                                    "tile loop (kcc.persistent_tiles)";
  if (name == kMaskUniformAttr || name == kMaskMonotoneAttr ||
      name == kDataDependentAttr || name == kMmaOperandAttr ||
      name == kMmaOverlapAttr || name == kFullMasksAttr ||
      name == kMasksRaggedAttr)
    return expectKind<UnitAttr>(op, attr, "a unit attribute");
  if (name == kClusterAttr || name == kPipelineStagesAttr) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    return n && n.getInt() >= 2 && n.getInt() <= 8 &&
                   isa<FunctionOpInterface>(op)
               ? success()
               : op->emitError()
                     << name
                     << (name == kClusterAttr ? " (CTAs per cluster)"
                                              : " (shared stages)")
                     << " must be an integer from 2 to 8, on a function";
  }
  if (name == kPersistentAttr) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    return n && n.getInt() > 0 ? success()
                               : op->emitError()
                                     << kPersistentAttr
                                     << " (CTAs per multiprocessor) must be a "
                                        "positive integer";
  }
  if (name == kPersistentOfAttr)
    return isa<FlatSymbolRefAttr>(attr.getValue()) &&
                   op->hasAttr(kPersistentAttr)
               ? success()
               : op->emitError()
                     << kPersistentOfAttr
                     << " names the one-program-per-tile build (a symbol) of "
                        "a kernel with "
                     << kPersistentAttr;
  if (name == kSplitKOfAttr)
    return expectKind<FlatSymbolRefAttr>(op, attr, "a symbol");
  if (name == kSplitKRefusedAttr)
    return expectKind<StringAttr>(op, attr, "a string");
  if (name == kSplitKAttr) {
    auto d = dyn_cast<DictionaryAttr>(attr.getValue());
    auto role = d ? d.getAs<StringAttr>("role") : StringAttr();
    bool ok = role && role.getValue() == "partial" &&
              llvm::all_of(std::array<StringRef, 5>{"trips", "rows", "cols",
                                                    "tiles", "store"},
                           [&](StringRef key) {
                             return isa_and_nonnull<StringAttr>(d.get(key));
                           });
    return ok ? success()
              : op->emitError() << kSplitKAttr
                                << " must be {role = \"partial\", trips, rows, "
                                   "cols, tiles, store} (strings)";
  }
  if (name == kFallbackOfAttr)
    return expectKind<FlatSymbolRefAttr>(op, attr, "a symbol");
  if (name == kVersionOfAttr)
    return expectKind<FlatSymbolRefAttr>(op, attr, "a symbol");
  if (name == kLaunchGuardAttr || name == kVersionGuardAttr) {
    auto d = dyn_cast<DictionaryAttr>(attr.getValue());
    bool ok =
        d && llvm::all_of(std::array<StringRef, 3>{"guard", "when", "at"},
                          [&](StringRef key) {
                            return isa_and_nonnull<StringAttr>(d.get(key));
                          });
    // The else build's mark rides along to the LLVM function.
    if (ok &&
        (name == kVersionGuardAttr || op->getName().getStringRef() == "scf.if"))
      return success();
    return op->emitError()
           << name << " must be a dictionary of strings guard, when and at"
           << (name == kVersionGuardAttr ? "" : ", on an scf.if");
  }
  if (name == kRolesAttr)
    return expectKind<IntegerAttr>(op, attr, "an integer");
  if (name == kEpilogueChunkAttr) {
    auto cols = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    return cols && cols.size() == 2 && 0 <= cols[0] && cols[0] < cols[1]
               ? success()
               : op->emitError() << kEpilogueChunkAttr
                                 << " must be a column range [lo, hi) with "
                                    "0 <= lo < hi";
  }
  if (name == kConsumerGroupsAttr) {
    auto g = dyn_cast<IntegerAttr>(attr.getValue());
    return g && (g.getInt() == 1 || g.getInt() == 2)
               ? success()
               : op->emitError() << kConsumerGroupsAttr << " must be 1 or 2";
  }
  if (name == kScratchBytesAttr || name == kScratchOffsetAttr)
    return expectKind<IntegerAttr>(op, attr, "an integer");
  if (name == kProducerWarpsAttr) {
    auto w = dyn_cast<IntegerAttr>(attr.getValue());
    return w && w.getInt() > 0 && w.getInt() % 4 == 0
               ? success()
               : op->emitError() << kProducerWarpsAttr
                                 << " must be a positive multiple of 4 (whole "
                                    "warpgroups)";
  }
  if (name == kAccessUniformAttr)
    return expectKind<IntegerAttr>(op, attr, "an integer");
  if (name == kPromotedLateAttr)
    return expectKind<UnitAttr>(op, attr, "a unit attribute");
  if (name == kTileAccessAttr || name == kTmaRefusedAttr ||
      name == kLiftedAttr || name == kLiftRefusedAttr ||
      name == kWarpSpecializeRefusedAttr || name == kMmaRefusedAttr ||
      name == kPingPongRefusedAttr || name == kDeferRefusedAttr ||
      name == kTurnsAttr || name == kClusterRefusedAttr)
    return expectKind<StringAttr>(op, attr, "a string");
  if (name == kTensorCoreRefusedAttr) {
    auto d = dyn_cast<DictionaryAttr>(attr.getValue());
    if (d && isa<DotOp, WarpMmaOp>(op) && llvm::all_of(d, [](NamedAttribute e) {
          return isa<StringAttr>(e.getValue());
        }))
      return success();
    return op->emitError() << kTensorCoreRefusedAttr
                           << " must be a dictionary from target names to "
                              "reasons, on kcc.dot or kcc.warp_mma";
  }
  if (name == kMmaAttr) {
    static const char *const names[] = {
        "mma.sync.m16n8k16",         "mma.sync.m16n8k32",
        "mfma.f32.16x16x16f16",      "mfma.f32.16x16x16bf16.1k",
        "mfma.i32.16x16x16i8",       "mfma.i32.16x16x32.i8",
        "mfma.f32.16x16x32.fp8.fp8", "mfma.f32.16x16x32.fp8.bf8",
        "mfma.f32.16x16x32.bf8.fp8", "mfma.f32.16x16x32.bf8.bf8"};
    auto s = dyn_cast<StringAttr>(attr.getValue());
    if (s && isa<DotOp, WarpMmaOp>(op) &&
        llvm::is_contained(names, s.getValue()))
      return success();
    InFlightDiagnostic d = op->emitError() << kMmaAttr << " must be ";
    for (auto [i, n] : llvm::enumerate(names))
      d << (i == 0                      ? ""
            : i + 1 == std::size(names) ? " or "
                                        : ", ")
        << '"' << n << '"';
    return d << " on a kcc.dot or kcc.warp_mma";
  }
  if (name == kSmemOffsetAttr || name == kDynamicSmemBytesAttr)
    return expectKind<IntegerAttr>(op, attr, "an integer");
  if (name == kSmemBytesAttr || name == kSmemAlignmentAttr) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    bool ok = n && (name == kSmemBytesAttr ? n.getInt() >= 0
                                           : llvm::isPowerOf2_64(n.getInt()));
    if (ok && isa<func::FuncOp>(op))
      return success();
    return op->emitError() << name
                           << (name == kSmemBytesAttr
                                   ? " must be a non-negative integer"
                                   : " must be a power-of-two integer")
                           << " on a func.func (kcc-allocate-shared-memory "
                              "records it)";
  }
  if (name == kSmemPaddingAttr) {
    auto pad = dyn_cast<DenseI32ArrayAttr>(attr.getValue());
    if (!pad || pad.size() != 2 || pad[0] <= 0 || pad[1] < 0)
      return op->emitError() << kSmemPaddingAttr
                             << " must be array<i32: every, pad> with every > 0 "
                                "and pad >= 0";
    return success();
  }
  if (name == kButterflyAttr) {
    auto steps = dyn_cast<ArrayAttr>(attr.getValue());
    bool ok = steps && llvm::all_of(steps, [](Attribute a) {
                auto d = dyn_cast<DictionaryAttr>(a);
                auto mask = d ? d.getAs<IntegerAttr>("mask") : IntegerAttr();
                return d && d.size() == 2 && d.getAs<StringAttr>("op") &&
                       mask && mask.getInt() > 0;
              });
    if (!ok)
      return op->emitError() << kButterflyAttr
                             << " must be an array of {op = \"<exchange>\", "
                                "mask = m} with m > 0";
    return success();
  }
  if (name == kBaseNameAttr || name == kTargetAttr)
    return expectKind<StringAttr>(op, attr, "a string");
  if (name == kElementCoordsAttr) { // load_tile_at, store_tile_at
    if (!isa<LoadTileOp, StoreTileOp>(op))
      return op->emitError()
             << name << " is only valid on kcc.load_tile and kcc.store_tile";
    return expectKind<UnitAttr>(op, attr, "a unit attribute");
  }
  if (name == ProgramGridOp::kRasterGroupAttr) {
    auto n = dyn_cast<IntegerAttr>(attr.getValue());
    return n && n.getInt() > 0 ? success()
                               : op->emitError()
                                     << name
                                     << " (group(N)) must be a positive "
                                        "integer";
  }
  return op->emitError() << "unknown kcc attribute " << name;
}

//===----------------------------------------------------------------------===//
// Op verifiers
//===----------------------------------------------------------------------===//

LogicalResult ArangeOp::verify() {
  int64_t start = getStart(), end = getEnd();
  auto type = getType();
  if (type.getRank() != 1)
    return emitOpError("result must be a 1-D tile");
  if (end <= start)
    return emitOpError("end must be greater than start");
  if (type.getDimSize(0) != end - start)
    return emitOpError("result has ")
           << type.getDimSize(0) << " elements, expected " << end - start;
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getRank() != dst.getRank())
    return emitOpError("source and result must have the same rank");
  if (src.getElementType() != dst.getElementType())
    return emitOpError("source and result must have the same element type");
  for (auto [s, d] : llvm::zip(src.getShape(), dst.getShape()))
    if (s != d && s != 1)
      return emitOpError("cannot broadcast dimension of size ")
             << s << " to " << d;
  return success();
}

LogicalResult ExpandDimsOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis > src.getRank())
    return emitOpError("axis ") << axis << " out of range";
  SmallVector<int64_t> shape(src.getShape());
  shape.insert(shape.begin() + axis, 1);
  if (ArrayRef<int64_t>(shape) != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return emitOpError("result type does not insert a unit dimension at axis ")
           << axis;
  return success();
}

LogicalResult ReshapeOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getElementType() != dst.getElementType() ||
      src.getNumElements() != dst.getNumElements())
    return emitOpError("keeps the element type and count: ")
           << src << " -> " << dst;
  return success();
}

LogicalResult TransOp::verify() {
  auto src = getSrc().getType(), dst = getType();
  if (src.getRank() != 2 || dst.getRank() != 2 ||
      src.getDimSize(0) != dst.getDimSize(1) ||
      src.getDimSize(1) != dst.getDimSize(0) ||
      src.getElementType() != dst.getElementType())
    return emitOpError("transposes a 2-D tile: ") << src << " -> " << dst;
  return success();
}

LogicalResult AddPtrOp::verify() {
  auto ptrTensor = dyn_cast<RankedTensorType>(getPtr().getType());
  auto offTensor = dyn_cast<RankedTensorType>(getOffset().getType());
  if (static_cast<bool>(ptrTensor) != static_cast<bool>(offTensor))
    return emitOpError("pointer and offset must both be tiles or both scalars");
  if (ptrTensor && ptrTensor.getShape() != offTensor.getShape())
    return emitOpError("pointer and offset tiles must have the same shape");
  if (getElementTypeOrSelf(getOffset().getType()).isInteger(1))
    return emitOpError("offset must not be i1");
  return success();
}

LogicalResult LoadOp::verify() {
  if (getOther() && !getMask())
    return emitOpError("'other' requires a mask");
  return success();
}

/// The element types an atomic of `kind` (or a compare-and-swap, when
/// `kind` is empty) updates; docs/language.md, "Atomics".
static bool atomicElementOk(std::optional<AtomicKind> kind, Type elem) {
  bool word = elem.isInteger(32) || elem.isInteger(64);
  if (!kind)
    return word;
  if (*kind == AtomicKind::Add)
    return word || elem.isF32() || elem.isF16() || elem.isBF16();
  return word || elem.isF32();
}

LogicalResult AtomicRMWOp::verify() {
  Type elem = getElementTypeOrSelf(getValue().getType());
  if (!atomicElementOk(getKind(), elem))
    return emitOpError("atomic ")
           << stringifyAtomicKind(getKind()) << " does not take " << elem;
  return success();
}

LogicalResult AtomicCASOp::verify() {
  Type elem = getElementTypeOrSelf(getValue().getType());
  if (!atomicElementOk(std::nullopt, elem))
    return emitOpError("compare-and-swap takes i32 or i64, not ") << elem;
  return success();
}

LogicalResult HistogramOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto result = cast<RankedTensorType>(getType());
  int64_t bins = getBins();
  if (bins <= 0 || bins > kMaxHistogramBins)
    return emitOpError("bins must be between 1 and ")
           << kMaxHistogramBins << ", got " << bins;
  if (result.getRank() != 1 || result.getDimSize(0) != bins)
    return emitOpError("result must be a 1-D tile of ") << bins << " counts";
  if (Value mask = getMask();
      mask &&
      cast<RankedTensorType>(mask.getType()).getShape() != src.getShape())
    return emitOpError("mask must have the shape of the values");
  return success();
}

LogicalResult ReduceOp::verify() {
  auto src = getSrc().getType();
  int64_t axis = getAxis();
  if (axis < 0 || axis >= src.getRank())
    return emitOpError("axis ") << axis << " out of range for a rank-"
                                << src.getRank() << " tile";
  Type expected = src.getElementType();
  if (src.getRank() > 1) {
    SmallVector<int64_t> shape(src.getShape());
    shape.erase(shape.begin() + axis);
    expected = RankedTensorType::get(shape, src.getElementType(),
                                     src.getEncoding());
  }
  // A column reduction of a wgmma accumulator (ReduceToLLVM.cpp) leaves a
  // plain or #kcc.blocked vector: a 1-D tile in #kcc.wgmma_acc is a row
  // vector.
  if (isa_and_nonnull<WgmmaAccLayoutAttr>(src.getEncoding()) && axis == 0 &&
      src.getRank() == 2) {
    auto res = dyn_cast<RankedTensorType>(getType());
    if (res &&
        (!res.getEncoding() || isa<BlockedLayoutAttr>(res.getEncoding())) &&
        res.getShape() == cast<ShapedType>(expected).getShape() &&
        res.getElementType() == src.getElementType())
      return success();
    return emitOpError("a column reduction of a #kcc.wgmma_acc tile gives a "
                       "plain or #kcc.blocked ")
           << RankedTensorType::get(cast<ShapedType>(expected).getShape(),
                                    src.getElementType());
  }
  if (getType() != expected)
    return emitOpError("result type must be ") << expected;
  return success();
}

LogicalResult DotOp::verify() {
  auto a = getA().getType(), b = getB().getType(), c = getC().getType();
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D tiles");
  if (a.getDimSize(1) != b.getDimSize(0) || a.getDimSize(0) != c.getDimSize(0) ||
      b.getDimSize(1) != c.getDimSize(1))
    return emitOpError("shapes do not form a matrix product: ")
           << a << " * " << b << " + " << c;
  // A dot whose accumulator has the MMA register layout runs as mma.sync
  // m16n8k16 (passes/MaterializeWarpMma.cpp checked these).
  // ... and one in the MFMA layout as v_mfma_f32_16x16x16.
  auto mfma = dyn_cast_or_null<MfmaAccLayoutAttr>(c.getEncoding());
  if (isa_and_nonnull<WgmmaAccLayoutAttr>(c.getEncoding()) || mfma) {
    Type e = a.getElementType();
    // MFMA also takes i8 x i8 -> i32 (mma.sync's 8-bit form is kcc.warp_mma).
    bool int8 = mfma && e.isInteger(8) && c.getElementType().isInteger(32);
    // wgmma multiplies e4m3 by e5m2 too, MFMA the FNUZ pair.
    bool f8 = (mfma ? isFnuzFloat8(e) && isFnuzFloat8(b.getElementType())
                    : isOcpFloat8(e) && isOcpFloat8(b.getElementType())) &&
              c.getElementType().isF32();
    if (!f8 &&
        (b.getElementType() != e ||
         !(int8 || ((e.isF16() || e.isBF16()) && c.getElementType().isF32()))))
      return emitOpError("an accumulator in the ")
             << c.getEncoding()
             << " layout needs f16 or bf16 operands of one type and an f32 "
                "accumulator"
             << (mfma ? ", i8 operands and an i32 accumulator, or "
                        "f8e4m3fnuz/f8e5m2fnuz operands and an f32 accumulator"
                      : ", or f8e4m3/f8e5m2 operands and an f32 accumulator");
    if (c != getResult().getType())
      return emitOpError("result type must match the accumulator");
    if (mfma && (a.getDimSize(0) % (16 * mfma.getWaves()) != 0 ||
                 b.getDimSize(1) % 16 != 0 || a.getDimSize(1) % 16 != 0))
      return emitOpError("an MFMA dot needs M a multiple of 16 x waves, N and "
                         "K multiples of 16");
    if (!mfma && (a.getDimSize(0) % 64 != 0 || b.getDimSize(1) % 8 != 0 ||
                  a.getDimSize(1) % 16 != 0))
      return emitOpError("an mma.sync dot needs M a multiple of 64, N of 8 "
                         "and K of 16");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Block-coordinate tile accesses
//===----------------------------------------------------------------------===//

/// Shared checks of load_tile/store_tile: ranks, element type, strides.
static LogicalResult verifyTileAccess(Operation *op, PtrType base,
                                      RankedTensorType tile, size_t dims,
                                      size_t strides, size_t coords) {
  int64_t rank = tile.getRank();
  if (rank < 1 || rank > 2)
    return op->emitOpError("tiles of rank 1 or 2 only, got rank ") << rank;
  // The tensor may have more dimensions than the tile (a batch): its leading
  // coordinates are then element indices.
  int64_t tensorRank = dims;
  if (tensorRank < rank || tensorRank > 3 || int64_t(coords) != tensorRank ||
      int64_t(strides) != tensorRank - 1)
    return op->emitOpError("a rank-")
           << rank << " tile of a tensor of rank " << rank
           << " to 3 needs one size and one coordinate per tensor dimension "
              "and one stride fewer, got "
           << dims << " sizes, " << strides << " stride(s) and " << coords
           << " coordinates";
  if (tile.getElementType() != base.getPointeeType())
    return op->emitOpError("tile element type ")
           << tile.getElementType() << " differs from the tensor's "
           << base.getPointeeType();
  return success();
}

LogicalResult LoadTileOp::verify() {
  auto tile = cast<RankedTensorType>(getType());
  if (getOther() && getOther().getType() != tile.getElementType())
    return emitOpError("'other' must be a ") << tile.getElementType();
  return verifyTileAccess(*this, getBase().getType(), tile, getDims().size(),
                          getStrides().size(), getCoords().size());
}

LogicalResult StoreTileOp::verify() {
  return verifyTileAccess(*this, getBase().getType(),
                          cast<RankedTensorType>(getValue().getType()),
                          getDims().size(), getStrides().size(),
                          getCoords().size());
}

//===----------------------------------------------------------------------===//
// Async (layout+effects) types and ops
//===----------------------------------------------------------------------===//

static int64_t elementBytes(Type elem) {
  return std::max<int64_t>(1, elem.getIntOrFloatBitWidth() / 8);
}

LogicalResult SmemType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType,
                               unsigned stages, unsigned swizzle,
                               unsigned pad) {
  if (shape.empty() || shape.size() > 2 ||
      llvm::any_of(shape, [](int64_t d) { return d <= 0; }))
    return emitError() << "a shared-memory tile has 1 or 2 positive dimensions";
  if (!elementType.isIntOrFloat())
    return emitError() << "a shared-memory tile holds integers or floats";
  if (stages == 0)
    return emitError() << "a shared-memory buffer has at least one stage";
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "swizzle must be 0, 32, 64 or 128 bytes, got "
                       << swizzle;
  if (pad != 0) {
    int64_t rowBytes = shape.back() * elementBytes(elementType);
    if (shape.size() != 2 || swizzle != 0 || pad % 16 != 0 ||
        rowBytes % 16 != 0)
      return emitError() << "row padding needs a 2-D unswizzled tile whose "
                            "rows and padding are whole 16-byte chunks, got "
                         << rowBytes << "-byte rows and pad = " << pad;
  }
  return success();
}

int64_t SmemType::getRowBytes() const {
  return getShape().back() * elementBytes(getElementType()) + getPad();
}

int64_t SmemType::getStageBytes() const {
  int64_t n = getRowBytes();
  for (int64_t d : getShape().drop_back())
    n *= d;
  // Every stage starts on a 128-byte boundary: a TMA copy writes only there
  // (a 64-byte tile's second stage would be a misaligned address).
  return llvm::alignTo(n, 128);
}

int64_t TensorMapType::getBoxBytes() const {
  int64_t n = elementBytes(getElementType());
  for (int64_t d : getBox())
    n *= d;
  return n;
}

/// A tile, stage or box `shape` of `elem` matches the buffer's tile.
static LogicalResult checkStageShape(Operation *op, SmemType smem,
                                     ArrayRef<int64_t> shape, Type elem,
                                     StringRef what) {
  if (smem.getShape() != shape || smem.getElementType() != elem)
    return op->emitOpError() << what << " does not match the stage shape of "
                             << smem;
  if (smem.getPad() != 0 && isa<TmaLoadOp, TmaStoreOp>(op))
    return op->emitOpError() << "TMA boxes are dense; a row-padded stage "
                             << smem << " cannot hold one";
  return success();
}

/// The stage tile that holds one box: a batched box's leading unit
/// dimensions (one matrix of the batch) are not the stage's.
static FailureOr<SmallVector<int64_t>> stageShapeOfBox(Operation *op,
                                                       TensorMapType map) {
  ArrayRef<int64_t> box = map.getBox();
  size_t lead = box.size() > 2 ? box.size() - 2 : 0;
  if (llvm::any_of(box.take_front(lead), [](int64_t d) { return d != 1; }))
    return op->emitOpError("a box of rank ")
           << box.size() << " must be 1 wide in its leading dimensions (one "
           << "matrix of a batch)";
  return SmallVector<int64_t>(box.drop_front(lead));
}

/// The cluster size of the kernel around `op` (kcc.cluster), or 0.
static int64_t clusterSizeAround(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  auto n = func ? func->getAttrOfType<IntegerAttr>(KccDialect::kClusterAttr)
                : IntegerAttr();
  return n ? n.getInt() : 0;
}

LogicalResult TmaLoadOp::verify() {
  TensorMapType map = getMap().getType();
  if (getCoords().size() != map.getBox().size())
    return emitOpError("needs one coordinate per box dimension (")
           << map.getBox().size() << ")";
  FailureOr<SmallVector<int64_t>> stageShape = stageShapeOfBox(*this, map);
  if (failed(stageShape))
    return failure();
  SmallVector<int64_t> shape = *stageShape;
  shape.back() *= getParts();
  if (std::optional<uint32_t> n = getMulticast();
      n && int64_t(*n) != clusterSizeAround(*this))
    return emitOpError("multicasts to ")
           << *n << " CTAs, but the kernel is not launched as clusters of "
           << *n << " (kcc.cluster)";
  return checkStageShape(*this, getDst().getType(), shape,
                         map.getElementType(),
                         getParts() == 1 ? "the box" : "the boxes");
}

LogicalResult TmaStoreOp::verify() {
  TensorMapType map = getMap().getType();
  if (getCoords().size() != map.getBox().size())
    return emitOpError("needs one coordinate per box dimension (")
           << map.getBox().size() << ")";
  FailureOr<SmallVector<int64_t>> shape = stageShapeOfBox(*this, map);
  if (failed(shape))
    return failure();
  shape->back() *= getParts();
  return checkStageShape(*this, getSrc().getType(), *shape,
                         map.getElementType(),
                         getParts() == 1 ? "the box" : "the boxes");
}

unsigned kcc::blockWarps(Operation *func) {
  auto warps = func->getAttrOfType<IntegerAttr>(KccDialect::kNumWarpsAttr);
  if (!warps)
    return 0;
  auto producer =
      func->getAttrOfType<IntegerAttr>(KccDialect::kProducerWarpsAttr);
  auto groups =
      func->getAttrOfType<IntegerAttr>(KccDialect::kConsumerGroupsAttr);
  return unsigned(warps.getInt()) * (groups ? unsigned(groups.getInt()) : 1) +
         (producer ? unsigned(producer.getInt()) : 0);
}

func::FuncOp kcc::persistentBuildOf(func::FuncOp func) {
  auto module = func->getParentOfType<ModuleOp>();
  if (!module)
    return {};
  for (auto build : module.getOps<func::FuncOp>())
    if (auto of = build->getAttrOfType<FlatSymbolRefAttr>(
            KccDialect::kPersistentOfAttr);
        of && of.getValue() == func.getSymName())
      return build;
  return {};
}

func::FuncOp kcc::oneCtaPerTileBuildOf(func::FuncOp persistentBuild) {
  auto of = persistentBuild->getAttrOfType<FlatSymbolRefAttr>(
      KccDialect::kPersistentOfAttr);
  auto module = persistentBuild->getParentOfType<ModuleOp>();
  return of && module ? module.lookupSymbol<func::FuncOp>(of.getAttr())
                      : func::FuncOp();
}

std::optional<std::string>
kcc::persistentBuildNotLaunched(func::FuncOp persistentBuild) {
  func::FuncOp plain = oneCtaPerTileBuildOf(persistentBuild);
  if (!plain)
    return std::nullopt;
  auto stagedMmas = [](func::FuncOp f) {
    unsigned n = 0;
    f.walk([&](Operation *op) { n += isa<WarpgroupMmaOp, Tcgen05MmaOp>(op); });
    return n;
  };
  if (stagedMmas(persistentBuild) < stagedMmas(plain))
    return std::string("it runs fewer of its dots on the staged tensor-core "
                       "instruction than the one-CTA-per-tile build");
  return std::nullopt;
}

std::optional<std::string>
kcc::persistentTilesRunUnevenly(func::FuncOp persistentBuild) {
  if (!persistentBuild->hasAttr(KccDialect::kPersistentOfAttr))
    return std::nullopt;
  // Whether `v` is computed from the induction variable of a tile loop.
  auto fromTile = [](Value v) {
    SmallVector<Value> work{v};
    DenseSet<Value> seen{v};
    while (!work.empty()) {
      Value x = work.pop_back_val();
      if (auto arg = dyn_cast<BlockArgument>(x)) {
        auto tiles = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
        if (tiles && arg == tiles.getInductionVar() &&
            tiles->hasAttr(KccDialect::kPersistentTilesAttr))
          return true;
        continue;
      }
      // A select on a constant (`where(CAUSAL == 1, ...)` with CAUSAL a
      // constant parameter) reads the operand it takes only.
      Operation *def = x.getDefiningOp();
      if (auto select = dyn_cast<arith::SelectOp>(def)) {
        BoolAttr known;
        if (matchPattern(select.getCondition(), m_Constant(&known))) {
          Value taken =
              known.getValue() ? select.getTrueValue() : select.getFalseValue();
          if (seen.insert(taken).second)
            work.push_back(taken);
          continue;
        }
      }
      // With the values an op with regions computes inside them (an
      // scf.if choosing the bound).
      def->walk([&](Operation *op) {
        for (Value operand : op->getOperands())
          if (seen.insert(operand).second)
            work.push_back(operand);
      });
    }
    return false;
  };
  std::optional<std::string> uneven;
  persistentBuild.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
    // Paired tiles (kcc-rasterize-programs) even out the CTAs' work.
    if (loop->hasAttr(KccDialect::kPairedTilesAttr))
      return WalkResult::interrupt();
    if (loop->hasAttr(KccDialect::kPersistentTilesAttr) ||
        !loop->getParentOfType<scf::ForOp>() ||
        !(fromTile(loop.getLowerBound()) || fromTile(loop.getUpperBound())))
      return WalkResult::advance();
    uneven = "the trip count of its loop at " +
             sourceLocationText(loop.getLoc(), /*baseName=*/true) +
             " changes from tile to tile, so CTAs that take the tiles in "
             "turn would finish unevenly; tiles are paired only where the "
             "trip counts grow or shrink along x alone";
    return WalkResult::interrupt();
  });
  return uneven;
}

LogicalResult MBarrierArriveOp::verify() {
  if (getCluster() && clusterSizeAround(*this) < 2)
    return emitOpError("arrives across a cluster only in a kernel launched "
                       "as clusters (kcc.cluster)");
  if (!getPerWarpgroup())
    return success();
  for (Region *r = getOperation()->getParentRegion(); r;
       r = r->getParentRegion())
    if (auto ws = dyn_cast<WarpSpecializeOp>(r->getParentOp()))
      return r == &ws.getConsumer()
                 ? success()
                 : emitOpError("per_warpgroup arrives only in the consumer "
                               "region of kcc.warp_specialize, not in its "
                               "producer");
  return emitOpError("per_warpgroup arrives only inside the consumer region "
                     "of kcc.warp_specialize");
}

LogicalResult WarpSpecializeOp::verify() {
  // setmaxnreg: a multiple of 8 in [24, 256], and the producer gives
  // registers away.
  for (auto [what, regs] : {std::pair{"producer_regs", getProducerRegs()},
                            {"consumer_regs", getConsumerRegs()}})
    if (regs < 24 || regs > 256 || regs % 8 != 0)
      return emitOpError() << what << " = " << regs
                           << " is not a multiple of 8 from 24 to 256 "
                              "(setmaxnreg's operand)";
  if (getProducerRegs() > getConsumerRegs())
    return emitOpError("producer_regs must not exceed consumer_regs");
  if (getProducerWarps() % 4 != 0)
    return emitOpError("producer_warps must be whole warpgroups (a multiple "
                       "of 4): setmaxnreg applies per warpgroup");
  // A cluster barrier may follow: every thread of both roles reaches it
  // (kcc-multicast-tma-loads keeps a CTA alive for its peers).
  Operation *next = getOperation()->getNextNode();
  while (isa_and_nonnull<ClusterBarrierOp>(next))
    next = next->getNextNode();
  if (!next || !next->hasTrait<OpTrait::IsTerminator>())
    return emitOpError("must be the last operation before its block's "
                       "terminator: code after it would run on both roles");
  if (!isa_and_nonnull<func::FuncOp>(getOperation()->getParentOp()))
    return emitOpError("must be directly in a kernel's body");
  return success();
}

LogicalResult WarpgroupTurnOp::verify() {
  for (Region *r = getOperation()->getParentRegion(); r;
       r = r->getParentRegion())
    if (auto ws = dyn_cast_or_null<WarpSpecializeOp>(r->getParentOp())) {
      if (r != &ws.getConsumer())
        break;
      if (ws.getConsumerWarpgroups() < 2 || ws.getNumConsumerGroups() != 1)
        return emitOpError("needs two or more consumer warpgroups sharing "
                           "one group (they take turns)");
      // Named barriers 0 .. 15; the warpgroups use barrier .. barrier + W-1.
      if (getBarrier() + ws.getConsumerWarpgroups() > 16)
        return emitOpError("uses named barriers past 15");
      return success();
    }
  return emitOpError("must be in the consumer region of a kcc.warp_specialize "
                     "(the consumer warpgroups take turns)");
}

LogicalResult ConsumerGroupOp::verify() {
  for (Region *r = getOperation()->getParentRegion(); r;
       r = r->getParentRegion())
    if (auto ws = dyn_cast_or_null<WarpSpecializeOp>(r->getParentOp())) {
      if (r == &ws.getConsumer())
        return success();
      break;
    }
  return emitOpError("must be in the consumer region of a kcc.warp_specialize "
                     "(only consumer groups have an index)");
}

/// What warpgroup_mma and warp_mma share: the accumulator (#kcc.wgmma_acc
/// once layouts are assigned) and 2-D stages that form acc[M,N] +=
/// a[M,K] x b[K,N] with the given majorness; `k` is K.
template <typename MmaOp>
static LogicalResult verifyStagedMma(MmaOp op, int64_t &k) {
  auto acc = cast<RankedTensorType>(op.getAcc().getType());
  if (acc != op.getResult().getType())
    return op.emitOpError("result type must match the accumulator");
  // Before layout assignment the tile has no layout yet.
  if (acc.getEncoding() && !isa<WgmmaAccLayoutAttr>(acc.getEncoding()))
    return op.emitOpError("the accumulator needs the #kcc.wgmma_acc layout");
  SmemType a = op.getA().getType(), b = op.getB().getType();
  if (a.getShape().size() != 2 || b.getShape().size() != 2 ||
      acc.getRank() != 2)
    return op.emitOpError("operands must be 2-D");
  bool aK = op.getAKMajor(), bK = op.getBKMajor();
  int64_t m = aK ? a.getShape()[0] : a.getShape()[1];
  int64_t ka = aK ? a.getShape()[1] : a.getShape()[0];
  int64_t n = bK ? b.getShape()[0] : b.getShape()[1];
  int64_t kb = bK ? b.getShape()[1] : b.getShape()[0];
  if (ka != kb || acc.getShape()[0] != m || acc.getShape()[1] != n)
    return op.emitOpError("shapes do not form acc[M,N] += a[M,K] x b[K,N]");
  k = ka;
  return success();
}

LogicalResult WarpgroupMmaOp::verify() {
  int64_t k;
  if (failed(verifyStagedMma(*this, k)))
    return failure();
  if (getA().getType().getSwizzle() != 128 ||
      getB().getType().getSwizzle() != 128)
    return emitOpError("operand stages must use the 128-byte swizzle");
  return success();
}

LogicalResult WarpgroupMmaRegAOp::verify() {
  auto acc = cast<RankedTensorType>(getAcc().getType());
  auto a = cast<RankedTensorType>(getA().getType());
  if (acc != getResult().getType())
    return emitOpError("result type must match the accumulator");
  if (acc.getEncoding() && !isa<WgmmaAccLayoutAttr>(acc.getEncoding()))
    return emitOpError("the accumulator needs the #kcc.wgmma_acc layout");
  // A's registers are the accumulator's mapping, 16-bit elements.
  if (a.getEncoding() && a.getEncoding() != acc.getEncoding())
    return emitOpError("A needs the accumulator's #kcc.wgmma_acc layout");
  SmemType b = getB().getType();
  if (a.getRank() != 2 || b.getShape().size() != 2 || acc.getRank() != 2)
    return emitOpError("operands must be 2-D");
  if (b.getSwizzle() != 128)
    return emitOpError("the B stage must use the 128-byte swizzle");
  Type elem = a.getElementType();
  if (elem != b.getElementType() || !(elem.isF16() || elem.isBF16()) ||
      !acc.getElementType().isF32())
    return emitOpError("takes f16 or bf16 operands of one type and an f32 "
                       "accumulator");
  bool bK = getBKMajor();
  int64_t n = bK ? b.getShape()[0] : b.getShape()[1];
  int64_t kb = bK ? b.getShape()[1] : b.getShape()[0];
  if (a.getShape()[1] != kb || acc.getShape()[0] != a.getShape()[0] ||
      acc.getShape()[1] != n)
    return emitOpError("shapes do not form acc[M,N] += a[M,K] x b[K,N]");
  if (a.getShape()[0] % 64 || kb % 16)
    return emitOpError("M must be a multiple of 64 and K of 16");
  return success();
}

LogicalResult WarpMmaOp::verify() {
  int64_t k;
  if (failed(verifyStagedMma(*this, k)))
    return failure();
  SmemType a = getA().getType(), b = getB().getType();
  if (a.getSwizzle() != 0 || b.getSwizzle() != 0 || a.getPad() == 0 ||
      b.getPad() == 0)
    return emitOpError("operand stages must be unswizzled and row-padded");
  Type elem = a.getElementType();
  auto acc = cast<RankedTensorType>(getAcc().getType());
  bool int8 = elem.isInteger(8) && acc.getElementType().isInteger(32);
  if (elem != b.getElementType() ||
      !(int8 ||
        ((elem.isF16() || elem.isBF16()) && acc.getElementType().isF32())))
    return emitOpError("takes f16 or bf16 operands of one type and an f32 "
                       "accumulator, or i8 operands and an i32 accumulator");
  // ldmatrix hands 8-bit fragments out untransposed only.
  if (int8 && (!getAKMajor() || !getBKMajor()))
    return emitOpError("i8 operands must both be K-major");
  if (acc.getShape()[0] % 16 || acc.getShape()[1] % 8 || k % (int8 ? 32 : 16))
    return emitOpError("M must be a multiple of 16, N of 8 and K of ")
           << (int8 ? 32 : 16);
  return success();
}

LogicalResult Tcgen05MmaOp::verify() {
  SmemType a = getA().getType(), b = getB().getType();
  if (a.getShape().size() != 2 || b.getShape().size() != 2)
    return emitOpError("operands must be 2-D");
  if (a.getSwizzle() != 128 || b.getSwizzle() != 128)
    return emitOpError("operand stages must use the 128-byte swizzle");
  Type elem = a.getElementType();
  bool int8 = elem.isInteger(8), f8 = isFloat8(elem);
  // kind::f8f6f4 names A's and B's formats apart (e4m3 x e5m2).
  bool typesOk = f8 ? isFloat8(b.getElementType())
                    : elem == b.getElementType() &&
                          (elem.isF16() || elem.isBF16() || int8);
  if (!typesOk)
    return emitOpError("takes f16, bf16 or i8 operands of one type, or "
                       "f8E4M3FN/f8E5M2 ones");
  bool aK = getAKMajor(), bK = getBKMajor();
  if ((int8 || f8) && !(aK && bK))
    return emitOpError(int8 ? "i8" : "8-bit float")
           << " operands must both be K-major";
  int64_t m = aK ? a.getShape()[0] : a.getShape()[1];
  int64_t ka = aK ? a.getShape()[1] : a.getShape()[0];
  int64_t n = bK ? b.getShape()[0] : b.getShape()[1];
  int64_t kb = bK ? b.getShape()[1] : b.getShape()[0];
  if (ka != kb)
    return emitOpError("A has K = ") << ka << " but B has K = " << kb;
  int64_t kStep = int8 || f8 ? 32 : 16;
  Tcgen05Kind kind = int8 ? Tcgen05Kind::I8
                     : f8 ? Tcgen05Kind::F8F6F4
                          : Tcgen05Kind::F16;
  if (llvm::Error e = checkTcgen05MmaShape(kind, m, n, kStep))
    return emitOpError(llvm::toString(std::move(e)));
  if (m != 128)
    return emitOpError("kcc places the accumulator in TMEM lanes 0-127 "
                       "(one row per lane): M must be 128, got ")
           << m;
  if (ka % kStep)
    return emitOpError("K = ") << ka << " is not a multiple of " << kStep;
  if (int64_t(getTmem().getType().getColumns()) < n)
    return emitOpError("the ") << m << "x" << n << " accumulator needs " << n
                               << " TMEM columns, the allocation has "
                               << getTmem().getType().getColumns();
  return success();
}

LogicalResult TmemLoadOp::verify() {
  auto tile = cast<RankedTensorType>(getType());
  if (tile.getRank() != 2 || tile.getShape()[0] != 128 ||
      !(tile.getElementType().isF32() || tile.getElementType().isInteger(32)))
    return emitOpError("reads a 128 x N f32 or i32 accumulator, not ") << tile;
  int64_t n = tile.getShape()[1];
  if (n > int64_t(getTmem().getType().getColumns()))
    return emitOpError("reads ")
           << n << " columns of a " << getTmem().getType().getColumns()
           << "-column allocation";
  auto layout = dyn_cast_or_null<TmemAccLayoutAttr>(tile.getEncoding());
  if (!layout) {
    if (tile.getEncoding())
      return emitOpError("the result needs the #kcc.tmem_acc layout");
    return success();
  }
  unsigned wgs = layout.getWarpgroups();
  if (n % (32 * wgs))
    return emitOpError("N = ")
           << n << " is not a multiple of 32 columns per warpgroup (" << wgs
           << " warpgroups)";
  // Warp w reads rows 32 (w mod 4) .. + 31: its own lane quarter.
  for (unsigned w = 0; w < 4 * wgs; ++w)
    if (llvm::Error e = checkTmemAccess(w, 32 * (w % 4), 32))
      return emitOpError(llvm::toString(std::move(e)));
  return success();
}

LogicalResult CpAsyncOp::verify() {
  SmemType dst = getDst().getType();
  auto ptr = cast<PtrType>(getBase().getType());
  // The tensor is the stage's rank, or one more (a batch).
  size_t rank = getDims().size();
  if (dst.getShape().size() != 2 || rank < 2 || rank > 3 ||
      getCoords().size() != rank || getStrides().size() != rank - 1)
    return emitOpError("needs a 2-D stage and, for a tensor of rank 2 or 3, "
                       "one size and one coordinate per dimension and one "
                       "stride fewer");
  if (ptr.getPointeeType() != dst.getElementType())
    return emitOpError("copies ")
           << ptr.getPointeeType() << " elements into a stage of "
           << dst.getElementType();
  if (dst.getSwizzle() != 0 ||
      dst.getShape().back() * elementBytes(dst.getElementType()) % 16 != 0)
    return emitOpError("needs an unswizzled stage whose rows are whole "
                       "16-byte chunks");
  return success();
}

LogicalResult CpAsyncGatherOp::verify() {
  SmemType dst = getDst().getType();
  auto ptrs = cast<RankedTensorType>(getPtrs().getType());
  auto ptr = dyn_cast<PtrType>(ptrs.getElementType());
  if (!ptr || ptrs.getRank() != 2 || dst.getShape().size() != 2 ||
      ArrayRef<int64_t>(dst.getShape()) != ptrs.getShape())
    return emitOpError("needs a 2-D tile of pointers of the stage's shape");
  if (ptr.getPointeeType() != dst.getElementType())
    return emitOpError("copies ")
           << ptr.getPointeeType() << " elements into a stage of "
           << dst.getElementType();
  if (Value mask = getMask()) {
    auto m = cast<RankedTensorType>(mask.getType());
    if (!m.getElementType().isInteger(1) || m.getShape() != ptrs.getShape())
      return emitOpError("needs an i1 mask of the pointers' shape");
  }
  if (dst.getSwizzle() != 0 ||
      dst.getShape().back() * elementBytes(dst.getElementType()) % 16 != 0)
    return emitOpError("needs an unswizzled stage whose rows are whole "
                       "16-byte chunks");
  return success();
}

LogicalResult WarpgroupMmaWaitOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands, DictionaryAttr,
    OpaqueProperties, RegionRange, SmallVectorImpl<Type> &inferred) {
  // The retired accumulators pass through unchanged.
  llvm::append_range(inferred, operands.getTypes());
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto src = cast<RankedTensorType>(getSrc().getType());
  auto dst = cast<RankedTensorType>(getType());
  if (src.getShape() != dst.getShape() ||
      src.getElementType() != dst.getElementType())
    return emitOpError("source and result must have the same shape and "
                       "element type");
  return success();
}

LogicalResult SmemLoadOp::verify() {
  auto tile = cast<RankedTensorType>(getType());
  // A [1, N] stage may be read as the [N, 1] column: the same elements in
  // the same row-major order (a row of scales broadcast over an
  // accumulator's rows).
  ArrayRef<int64_t> stage = getSrc().getType().getShape();
  if (stage.size() == 2 && stage[0] == 1 && tile.getRank() == 2 &&
      tile.getShape()[0] == stage[1] && tile.getShape()[1] == 1)
    return checkStageShape(*this, getSrc().getType(), stage,
                           tile.getElementType(), "the result tile");
  return checkStageShape(*this, getSrc().getType(), tile.getShape(),
                         tile.getElementType(), "the result tile");
}

LogicalResult SmemStoreOp::verify() {
  auto tile = cast<RankedTensorType>(getValue().getType());
  std::optional<ArrayRef<int64_t>> window = getWindow();
  if (!window)
    return checkStageShape(*this, getDst().getType(), tile.getShape(),
                           tile.getElementType(), "the stored tile");
  SmemType stage = getDst().getType();
  if (stage.getElementType() != tile.getElementType())
    return emitOpError("the stored tile's element type does not match the "
                       "stage's, ")
           << stage;
  if (window->size() != size_t(tile.getRank()) ||
      stage.getShape().size() != size_t(tile.getRank()))
    return emitOpError("a window needs one offset per dimension of the tile "
                       "and a stage of the same rank");
  for (auto [off, part, whole] :
       llvm::zip(*window, stage.getShape(), tile.getShape()))
    if (off < 0 || off + part > whole) {
      std::string at;
      llvm::raw_string_ostream os(at);
      llvm::interleaveComma(*window, os);
      return emitOpError("the window at [")
             << at << "] of the stage's shape reaches outside the stored tile "
             << tile;
    }
  return success();
}

namespace {
/// A reduction along the only non-unit axis of a tile (a [1, N] row summed
/// along axis 1) is the reduction of its N elements: reduced as a 1-D tile
/// (warp shuffles) instead of through the 2-D path's shared memory, then
/// splat to the unit-shaped result.
struct ReduceAlongOnlyAxis : OpRewritePattern<ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReduceOp op,
                                PatternRewriter &rewriter) const override {
    RankedTensorType src = op.getSrc().getType();
    auto result = dyn_cast<RankedTensorType>(op.getType());
    if (!result || src.getRank() < 2)
      return failure();
    for (auto [i, d] : llvm::enumerate(src.getShape()))
      if (int64_t(i) != int64_t(op.getAxis()) && d != 1)
        return failure();
    Type elem = src.getElementType();
    auto flatType = RankedTensorType::get({src.getNumElements()}, elem);
    Value flat = ReshapeOp::create(rewriter, op.getLoc(), flatType, op.getSrc());
    Value scalar = ReduceOp::create(rewriter, op.getLoc(), elem,
                                    op.getKindAttr(), flat,
                                    rewriter.getI32IntegerAttr(0));
    rewriter.replaceOpWithNewOp<SplatOp>(op, result, scalar);
    return success();
  }
};
} // namespace

void ReduceOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<ReduceAlongOnlyAxis>(context);
}
