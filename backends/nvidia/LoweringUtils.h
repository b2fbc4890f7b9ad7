//===- LoweringUtils.h - helpers shared by the NVIDIA lowering ----*- C++ -*-===//
//
// Thread semantics of `#kcc.blocked<vec, threads, warp>` (see ir/KccTypes.td):
// with ve = effective vec and nchunks = N / ve, register r of thread t holds
//   chunk = (r / ve) * threads + t            (nchunks >= threads)
//   chunk = t mod nchunks                     (nchunks <  threads: replicated)
//   flat  = chunk * ve + r % ve
// Only threads t < nchunks own (write) a replicated tile's chunks.
//
//===----------------------------------------------------------------------===//
#ifndef KCC_BACKENDS_NVIDIA_LOWERINGUTILS_H
#define KCC_BACKENDS_NVIDIA_LOWERINGUTILS_H

#include "ir/Dialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Transforms/DialectConversion.h"

namespace kcc::nvidia {

/// Per-thread view of one tile type.
struct TileLayout {
  int64_t numElems = 0;
  unsigned vec = 1;     // effective vec
  unsigned threads = 0;
  unsigned warp = 32;
  unsigned regs = 0;    // registers per thread
  int64_t nchunks = 0;
  bool replicated() const { return nchunks < threads; }
  static TileLayout get(mlir::RankedTensorType type);
  /// Compile-time part of the flat index of register r.
  int64_t regOffset(unsigned r) const {
    if (replicated())
      return r % vec;
    return int64_t(r / vec) * threads * vec + r % vec;
  }
};

/// The tile type converter: tensors -> vector<regs x T> (pointers -> i64),
/// !kcc.ptr -> !llvm.ptr<as>.
class KccTypeConverter : public mlir::TypeConverter {
public:
  explicit KccTypeConverter(mlir::MLIRContext *ctx);
};

// --- small builders -------------------------------------------------------
mlir::Value i32Const(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
mlir::Value intConst(mlir::OpBuilder &b, mlir::Location loc, mlir::Type t,
                     int64_t v);
mlir::Value getTid(mlir::OpBuilder &b, mlir::Location loc);
/// tid-dependent part of the flat index (i32).
mlir::Value threadBase(mlir::OpBuilder &b, mlir::Location loc,
                       const TileLayout &l, mlir::Value tid);
/// flat index (i32) of register r of this thread.
mlir::Value flatIndex(mlir::OpBuilder &b, mlir::Location loc,
                      const TileLayout &l, mlir::Value base, unsigned r);
/// i1 "this thread owns its chunks" (null when every thread owns).
mlir::Value ownerPred(mlir::OpBuilder &b, mlir::Location loc,
                      const TileLayout &l, mlir::Value tid);
mlir::Value extractElem(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        int64_t i);
mlir::Value buildVector(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ArrayRef<mlir::Value> elems);
mlir::Value splatVector(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value scalar, unsigned n);
/// Unpack a converted tile (vector) into its registers.
llvm::SmallVector<mlir::Value> unpack(mlir::OpBuilder &b, mlir::Location loc,
                                      mlir::Value v);
void barrier(mlir::OpBuilder &b, mlir::Location loc);
/// Base pointer (addrspace 3) of the kernel's shared-memory buffer.
mlir::Value smemBase(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Operation *user);
std::string smemName(llvm::StringRef kernel);
/// Memory representation of an element type: i1 -> i8, ptr -> i64.
mlir::Type storageType(mlir::Type elem);
unsigned storageBytes(mlir::Type elem);
/// Converted value -> storage type and back (only i1 changes).
mlir::Value toStorage(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value fromStorage(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                        mlir::Type elem);
/// Runs `body` only when `cond` holds (no-op guard when cond is null).
void emitIf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value cond,
            llvm::function_ref<void(mlir::OpBuilder &)> body);
/// Flat index of element `multi` of a row-major shape (i32 arithmetic).
mlir::Value linearize(mlir::OpBuilder &b, mlir::Location loc,
                      llvm::ArrayRef<mlir::Value> multi,
                      llvm::ArrayRef<int64_t> shape);
/// Multi-index (i32) of a flat index in a row-major power-of-two shape.
llvm::SmallVector<mlir::Value> delinearize(mlir::OpBuilder &b,
                                           mlir::Location loc,
                                           mlir::Value flat,
                                           llvm::ArrayRef<int64_t> shape);

/// Shared-memory bytes needed by one op (0 if none).
int64_t smemBytesFor(mlir::Operation *op);

// Pattern sets living in other files.
void populateReducePatterns(KccTypeConverter &tc,
                            mlir::RewritePatternSet &patterns);
void populateMathPatterns(KccTypeConverter &tc,
                          mlir::RewritePatternSet &patterns,
                          mlir::ConversionTarget &target);

} // namespace kcc::nvidia

#endif
