//===- SimLegs.cpp - kcc-difftest's SIMT simulator legs -------------------===//
#include "tools/kcc-difftest/SimLegs.h"
#include "tools/kcc-difftest/Compare.h"

#include "interp/DType.h"
#include "ir/Dialect.h"
#include "pipeline/Pipeline.h"
#include "sim/Reports.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <chrono>
#include <cstring>
#include <limits>

using namespace llvm;
using namespace kcc;
using namespace kcc::difftest;

std::vector<std::string> kcc::difftest::cpuLegNames() {
  return {"interp", "sim-sm_90a", "sim-gfx942"};
}

/// The tensor-map arguments of each kernel of `withMaps` (pipeline::withTensorMaps
/// for the leg's target), which the cases encode from their tensors.
static void collectTensorMaps(SimLeg &leg, mlir::ModuleOp withMaps) {
  for (auto func : withMaps.getOps<mlir::func::FuncOp>())
    for (unsigned i = 0; i < func.getNumArguments(); ++i) {
      auto type = mlir::dyn_cast<TensorMapType>(func.getArgument(i).getType());
      auto of = func.getArgAttrOfType<mlir::IntegerAttr>(
          i, KccDialect::kTensorMapOfAttr);
      if (!type || !of)
        continue;
      SimLeg::MapArg m;
      m.base = of.getInt();
      m.box.assign(type.getBox().begin(), type.getBox().end());
      int64_t elems = 1;
      for (int64_t d : type.getBox())
        elems *= d;
      m.elementBytes = type.getBoxBytes() / std::max<int64_t>(1, elems);
      m.swizzle = type.getSwizzle();
      if (auto shape = func.getArgAttrOfType<mlir::ArrayAttr>(
              i, KccDialect::kTensorMapShapeAttr))
        for (mlir::Attribute a : shape) {
          auto n = mlir::cast<mlir::IntegerAttr>(a);
          m.shape.push_back({n.getType().isIndex(), n.getInt()});
        }
      leg.maps[func.getSymName().str()].push_back(std::move(m));
    }
}

std::shared_ptr<const sim::Program> SimLeg::decode(mlir::LLVM::LLVMFuncOp func,
                                                   sim::Report &error) const {
  std::lock_guard<std::mutex> lock(*decodeMutex);
  auto [it, fresh] = decoded.try_emplace(func.getOperation());
  if (fresh) {
    it->second.error = sim::Report{sim::Report::Error, "", func.getLoc()};
    it->second.program = sim::decodeKernel(func, *it->second.error);
  }
  if (!it->second.program)
    error = *it->second.error;
  return it->second.program;
}

bool kcc::difftest::prepareSimLeg(SimLeg &leg, mlir::ModuleOp tileIR,
                                  const std::string &overridePath,
                                  const pipeline::LayoutOptions &layout,
                                  std::string &error) {
  StringRef targetName = StringRef(leg.name).drop_front(4);
  leg.target = TargetRegistry::builtin().lookup(targetName);
  if (!leg.target) {
    error = "unknown leg '" + leg.name + "': no target model named '" +
            targetName.str() + "' (legs: " + join(cpuLegNames(), ", ") +
            ", or sim-<any built-in target>)";
    return false;
  }
  mlir::MLIRContext *ctx = tileIR.getContext();
  if (!overridePath.empty()) {
    leg.module = mlir::parseSourceFile<mlir::ModuleOp>(overridePath, ctx);
    if (!leg.module) {
      error = "cannot parse the module for " + leg.name + ": " + overridePath;
      return false;
    }
    // An edited lowering of the same kernels: the cases encode the tensor
    // maps kcc gives them.
    if (mlir::OwningOpRef<mlir::ModuleOp> withMaps =
            pipeline::withTensorMaps(tileIR, *leg.target))
      collectTensorMaps(leg, *withMaps);
    return true;
  }
  // Collect the compiler's diagnostics instead of printing them: a kernel
  // kcc refuses for this target (a documented limit) skips the leg.
  std::string first;
  mlir::ScopedDiagnosticHandler handler(ctx, [&](mlir::Diagnostic &d) {
    if (d.getSeverity() == mlir::DiagnosticSeverity::Error && first.empty())
      first = d.str();
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> withMaps =
      pipeline::withTensorMaps(tileIR, *leg.target);
  if (withMaps) {
    collectTensorMaps(leg, *withMaps);
    leg.module = pipeline::lowerForSimulator(*withMaps, *leg.target, layout);
  }
  if (!leg.module)
    leg.unavailable = "kcc cannot compile it for " + leg.target->name +
                      (first.empty() ? "" : ": " + first);
  return true;
}

SimCell
kcc::difftest::runSimCase(const SimLeg &leg, StringRef symbol,
                          const std::vector<interp::Buffer> &userInputs,
                          const std::vector<interp::KernelArg> &userArgs,
                          const std::vector<RunArg> &userRunArgs,
                          const std::vector<RunOutput> &outputs,
                          const std::vector<interp::Buffer> *reference,
                          const interp::Grid &grid, const SimLimits &limits,
                          const SplitLaunch *split) {
  SimCell out;
  if (!leg.module) {
    out.cell = "SKIP(" + leg.unavailable + ")";
    return out;
  }
  if (!reference) {
    out.cell = "SKIP(no reference)";
    return out;
  }
  // A split-K build: the workspace and the tickets are two more buffers,
  // the workspace's tensor, the slice count and the tickets more arguments,
  // as the stubs pass them.
  std::vector<interp::Buffer> splitInputs;
  std::vector<interp::KernelArg> splitArgs;
  std::vector<RunArg> splitRunArgs;
  if (split) {
    splitInputs = userInputs;
    splitArgs = userArgs;
    splitRunArgs = userRunArgs;
    // A buffer passed by pointer.
    auto pass = [&](interp::Buffer buffer) {
      interp::KernelArg arg;
      arg.isPointer = true;
      arg.buffer = splitInputs.size();
      RunArg run;
      run.isPointer = true;
      run.buffer = buffer.name;
      splitInputs.push_back(std::move(buffer));
      splitArgs.push_back(arg);
      splitRunArgs.push_back(run);
    };
    int64_t stride = (split->cols + 3) / 4 * 4;
    interp::Buffer ws;
    ws.name = "kcc_ws";
    ws.array.dtype = interp::DType::f32;
    ws.array.shape = {split->splits * split->rows, stride};
    ws.array.data.resize(size_t(split->splits * split->rows * stride) * 4);
    float nan = std::numeric_limits<float>::quiet_NaN();
    for (size_t i = 0; i < ws.array.data.size(); i += 4)
      std::memcpy(&ws.array.data[i], &nan, 4);
    pass(std::move(ws));
    for (int64_t v :
         {split->splits * split->rows, split->cols, stride, split->splits}) {
      interp::KernelArg a;
      a.intValue = v;
      splitArgs.push_back(a);
      RunArg r;
      r.bits = uint64_t(uint32_t(int32_t(v)));
      splitRunArgs.push_back(r);
    }
    // Zero, as the runtime hands them out; the run must leave them zero.
    interp::Buffer tickets;
    tickets.name = "kcc_tickets";
    tickets.array.dtype = interp::DType::i32;
    tickets.array.shape = {split->tiles};
    tickets.array.data.assign(size_t(split->tiles) * 4, 0);
    pass(std::move(tickets));
  }
  const std::vector<interp::Buffer> &inputs = split ? splitInputs : userInputs;
  const std::vector<interp::KernelArg> &args = split ? splitArgs : userArgs;
  const std::vector<RunArg> &runArgs = split ? splitRunArgs : userRunArgs;
  sim::Options options = sim::optionsFor(*leg.target);
  options.seed = limits.seed;
  options.maxInstructions = limits.maxInstructions;
  options.bankConflicts = limits.bankConflicts;
  options.hostThreads = limits.hostThreads;
  std::vector<sim::GlobalBuffer> buffers;
  for (const interp::Buffer &b : inputs)
    buffers.push_back(
        {b.name, b.array.data, unsigned(interp::dtypeSize(b.array.dtype))});
  // One launch of `name` over `at` on `buffers`; false with `out` set when
  // it cannot run or fails.
  auto launch = [&](StringRef name, const interp::Grid &at) {
    auto func = leg.module.get().lookupSymbol<mlir::LLVM::LLVMFuncOp>(name);
    if (!func || func.isExternal()) {
      out.cell = "FAIL";
      out.detail =
          leg.name + ": the lowered module has no kernel @" + name.str();
      return false;
    }
    // Size guard: a case too large for CI is skipped, and says so.
    uint64_t ctas = uint64_t(at[0]) * at[1] * at[2];
    uint64_t threadsPerCta = uint64_t(kcc::blockWarps(func)) * options.warpSize;
    if (ctas * threadsPerCta > limits.maxThreads) {
      out.cell = formatv("SKIP(too large: {0} CTAs x {1} threads > "
                         "--sim-max-threads={2})",
                         ctas, threadsPerCta, limits.maxThreads);
      return false;
    }
    if (at[0] > UINT32_MAX || at[1] > UINT32_MAX || at[2] > UINT32_MAX) {
      out.cell = "SKIP(grid too large)";
      return false;
    }
    std::vector<sim::KernelArg> simArgs;
    for (auto [a, r] : llvm::zip(args, runArgs)) {
      sim::KernelArg k;
      if (a.isPointer) {
        k.kind = sim::KernelArg::Pointer;
        k.index = a.buffer;
        k.byteOffset = uint64_t(a.offset) *
                       interp::dtypeSize(inputs[a.buffer].array.dtype);
      } else {
        k.bits = r.bits;
      }
      simArgs.push_back(k);
    }
    // Tensor maps after the user arguments, encoded from the tensors'
    // arguments as the stubs do.
    std::vector<sim::TensorMap> maps;
    auto mapArgs = leg.maps.find(name.str());
    if (mapArgs != leg.maps.end())
      for (const SimLeg::MapArg &m : mapArgs->second) {
        unsigned rank = m.box.size();
        // Sizes then strides: a tensor parameter's arguments after its base,
        // or a lifted tile's own.
        auto extent = [&](unsigned i) -> int64_t {
          if (m.shape.empty())
            return int32_t(runArgs[m.base + 1 + i].bits);
          auto [isArg, v] = m.shape[i];
          return isArg ? int64_t(int32_t(runArgs[v].bits)) : v;
        };
        bool fits = m.shape.empty() ? m.base + 2 * rank <= args.size()
                                    : m.shape.size() == 2 * rank - 1;
        for (auto [isArg, v] : m.shape)
          fits = fits && (!isArg || uint64_t(v) < runArgs.size());
        if (!fits || m.base >= args.size() || !args[m.base].isPointer) {
          out.cell = "FAIL";
          out.detail = leg.name + ": tensor map of argument " +
                       std::to_string(m.base) + " has no tensor there";
          return false;
        }
        sim::TensorMap t;
        t.buffer = args[m.base].buffer;
        t.baseOffset = uint64_t(args[m.base].offset) *
                       interp::dtypeSize(inputs[t.buffer].array.dtype);
        t.rank = rank;
        t.elementBytes = m.elementBytes;
        t.swizzleBytes = m.swizzle;
        for (unsigned d = 0; d < rank; ++d) {
          int64_t size = extent(d);
          if (size <= 0) {
            out.cell = "SKIP(an empty tensor has no tensor map)";
            return false;
          }
          t.dims[rank - 1 - d] = size;
          t.box[rank - 1 - d] = m.box[d];
          if (d + 1 < rank) {
            int64_t stride = extent(rank + d);
            if (stride < 0) {
              out.cell = "SKIP(a negative stride has no tensor map)";
              return false;
            }
            t.strideBytes[rank - 1 - d] = uint64_t(stride) * m.elementBytes;
          }
        }
        sim::KernelArg k;
        k.kind = sim::KernelArg::TensorMapPtr;
        k.index = maps.size();
        simArgs.push_back(k);
        maps.push_back(t);
      }
    auto start = std::chrono::steady_clock::now();
    sim::Result result;
    sim::Report decodeError{sim::Report::Error, "", func.getLoc()};
    if (std::shared_ptr<const sim::Program> prog =
            leg.decode(func, decodeError))
      result = sim::simulate(
          func, *prog, simArgs, buffers, maps,
          {uint32_t(at[0]), uint32_t(at[1]), uint32_t(at[2])}, options);
    else
      result.reports.push_back(decodeError);
    out.ms += std::chrono::duration<double, std::milli>(
                  std::chrono::steady_clock::now() - start)
                  .count();
    out.banks.insert(out.banks.end(), result.banks.begin(), result.banks.end());
    if (!result.ok()) {
      out.reports = std::move(result.reports);
      out.cell = "FAIL";
      for (const sim::Report &r : out.reports)
        if (r.severity == sim::Report::Error) {
          out.detail = leg.name + ": " + r.message;
          break;
        }
      return false;
    }
    return true;
  };
  if (split) {
    interp::Grid slices = {grid[0], grid[1], split->splits};
    if (!launch(split->build, slices))
      return out;
    const std::vector<uint8_t> &tickets = buffers.back().bytes;
    if (llvm::any_of(tickets, [](uint8_t b) { return b != 0; })) {
      out.cell = "FAIL";
      out.detail = leg.name + ": the split-K build left a tile's ticket "
                              "nonzero (the next launch would misread it)";
      return out;
    }
  } else if (!launch(symbol, grid)) {
    return out;
  }
  std::vector<std::string> notes;
  for (const RunOutput &o : outputs) {
    auto ref = llvm::find_if(*reference, [&](const interp::Buffer &b) {
      return b.name == o.buffer;
    });
    auto in = llvm::find_if(
        inputs, [&](const interp::Buffer &b) { return b.name == o.buffer; });
    if (ref == reference->end() || in == inputs.end())
      continue;
    interp::NpyArray got = in->array;
    got.data = buffers[in - inputs.begin()].bytes;
    Comparison cmp = compareArrays(o.buffer, ref->array, got, {o.rtol, o.atol});
    if (!cmp.ok)
      notes.push_back(cmp.summary);
  }
  out.cell = notes.empty() ? "PASS" : "FAIL";
  if (!notes.empty())
    out.detail = leg.name + ": " + join(notes, "; ");
  return out;
}

void kcc::difftest::addBanks(SimLeg &leg, const SimCell &cell) {
  for (const sim::BankSummary &b : cell.banks) {
    sim::BankSummary &sum = leg.banks[b.op];
    if (!sum.op) {
      sum = b;
      continue;
    }
    sum.executions += b.executions;
    sum.wavefronts += b.wavefronts;
    sum.idealWavefronts += b.idealWavefronts;
    sum.maxDegree = std::max(sum.maxDegree, b.maxDegree);
  }
}

void kcc::difftest::printLegBankConflicts(const std::vector<SimLeg> &legs,
                                          raw_ostream &os) {
  for (const SimLeg &leg : legs) {
    std::vector<sim::BankSummary> list;
    for (auto &[op, s] : leg.banks)
      list.push_back(s);
    auto key = [](const sim::BankSummary &b) {
      std::string s;
      llvm::raw_string_ostream os(s);
      b.op->getLoc().print(os);
      return s + (b.store ? " store" : " load");
    };
    llvm::sort(list, [&](const sim::BankSummary &a, const sim::BankSummary &b) {
      return key(a) < key(b);
    });
    os << leg.name << ": shared-memory accesses (bank model of "
       << (leg.target ? leg.target->name : "?") << "):\n";
    sim::printBankSummary(list, os, /*all=*/true);
  }
}
