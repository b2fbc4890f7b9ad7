//===- CodeGen.cpp - LLVM IR to AMDGPU code objects and HIP fat binaries
//---===//
#include "backends/amd/CodeGen.h"
#include "backends/gpu/CodeGenUtils.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"

#include <mutex>

using namespace llvm;
using namespace kcc;
using codegen::makeError;
using codegen::readFile;
using codegen::runTool;
using codegen::TempFile;
using codegen::writeFile;

static constexpr const char *kTriple = "amdgcn-amd-amdhsa";

void amd::registerBackend() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

Expected<std::unique_ptr<TargetMachine>>
amd::createTargetMachine(const TargetModel &target, unsigned optLevel,
                         bool fpContract) {
  registerBackend();
  return codegen::createTargetMachine(
      kTriple, target.llvmCpu(), target.llvmFeatures(), optLevel, fpContract);
}

Error amd::optimizeModule(Module &module, TargetMachine &tm,
                          unsigned optLevel) {
  // LLVM 22 defaults to code object v6, which HIP runtimes before ROCm 6.2
  // cannot load; v5 is what every current runtime accepts.
  module.addModuleFlag(Module::Error, "amdhsa_code_object_version", 500);
  codegen::optimize(module, tm, optLevel);
  // Anything still called by name would have to come from the ROCm device
  // libraries (ocml/ockl), which kcc does not link.
  for (const Function &f : module.functions())
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty())
      return makeError("the kernel needs '" + f.getName() +
                       "', which exists only in the ROCm device libraries; "
                       "kcc does not link them for AMD targets yet (f64 "
                       "exp/log and similar; use f32)");
  return Error::success();
}

Expected<std::string> amd::emitAssembly(Module &module, TargetMachine &tm) {
  return codegen::emit(module, tm, CodeGenFileType::AssemblyFile);
}

/// An LLVM tool: next to the LLVM kcc was built with, else on PATH with or
/// without the Debian version suffix.
static Expected<std::string> findLLVMTool(StringRef name) {
  if (ErrorOr<std::string> p =
          sys::findProgramByName(name, {KCC_LLVM_TOOLS_DIR}))
    return *p;
  for (std::string candidate : {(name + "-22").str(), name.str()})
    if (ErrorOr<std::string> p = sys::findProgramByName(candidate))
      return *p;
  return makeError("cannot find '" + name + "' (looked in " +
                   KCC_LLVM_TOOLS_DIR +
                   " and on PATH); install lld-22 and clang-22, or stop at "
                   "--emit=amdgcn");
}

Expected<std::string> amd::emitHsaco(Module &module, TargetMachine &tm) {
  Expected<std::string> object =
      codegen::emit(module, tm, CodeGenFileType::ObjectFile);
  if (!object)
    return object.takeError();
  Expected<std::string> lld = findLLVMTool("ld.lld");
  if (!lld)
    return lld.takeError();
  Expected<std::unique_ptr<TempFile>> in = TempFile::create("kcc", "o");
  if (!in)
    return in.takeError();
  Expected<std::unique_ptr<TempFile>> out = TempFile::create("kcc", "hsaco");
  if (!out)
    return out.takeError();
  if (Error e = writeFile((*in)->path, *object))
    return std::move(e);
  StringRef args[] = {*lld,         "-flavor",        "gnu",
                      "-shared",    "--no-undefined", "-o",
                      (*out)->path, (*in)->path};
  std::string log;
  if (Error e = runTool(*lld, args, log))
    return std::move(e);
  return readFile((*out)->path);
}

Expected<std::map<std::string, amd::KernelResources>>
amd::readKernelResources(StringRef hsaco) {
  Expected<object::ELF64LEFile> elf = object::ELF64LEFile::create(hsaco);
  if (!elf)
    return elf.takeError();
  Expected<object::ELF64LEFile::Elf_Phdr_Range> phdrs = elf->program_headers();
  if (!phdrs)
    return phdrs.takeError();
  std::map<std::string, KernelResources> out;
  for (const auto &phdr : *phdrs) {
    if (phdr.p_type != ELF::PT_NOTE)
      continue;
    Error err = Error::success();
    for (const auto &note : elf->notes(phdr, err)) {
      if (note.getName() != "AMDGPU" ||
          note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> desc = note.getDesc(phdr.p_align);
      msgpack::Document doc;
      if (!doc.readFromBlob(
              StringRef(reinterpret_cast<const char *>(desc.data()),
                        desc.size()),
              /*Multi=*/false))
        return makeError("unreadable AMDGPU metadata note");
      msgpack::DocNode root = doc.getRoot();
      if (!root.isMap())
        continue;
      auto &rootMap = root.getMap();
      auto kernels = rootMap.find(doc.getNode("amdhsa.kernels"));
      if (kernels == rootMap.end() || !kernels->second.isArray())
        continue;
      for (msgpack::DocNode &k : kernels->second.getArray()) {
        if (!k.isMap())
          continue;
        auto &m = k.getMap();
        auto num = [&](StringRef key) -> unsigned {
          auto it = m.find(doc.getNode(key));
          if (it == m.end())
            return 0;
          if (it->second.getKind() == msgpack::Type::UInt)
            return it->second.getUInt();
          if (it->second.getKind() == msgpack::Type::Int)
            return it->second.getInt();
          return 0;
        };
        auto name = m.find(doc.getNode(".name"));
        if (name == m.end() || !name->second.isString())
          continue;
        KernelResources r;
        r.vgprs = num(".vgpr_count");
        r.agprs = num(".agpr_count");
        r.sgprs = num(".sgpr_count");
        r.ldsBytes = num(".group_segment_fixed_size");
        r.scratchBytes = num(".private_segment_fixed_size");
        r.vgprSpills = num(".vgpr_spill_count");
        r.sgprSpills = num(".sgpr_spill_count");
        r.wavefrontSize = num(".wavefront_size");
        r.maxFlatWorkgroupSize = num(".max_flat_workgroup_size");
        out[name->second.getString().str()] = r;
      }
    }
    if (err)
      return std::move(err);
  }
  return out;
}

std::string amd::bundleTargetId(const TargetModel &target) {
  return "hipv4-" + std::string(kTriple) + "--" + target.processor;
}

Expected<std::string> amd::bundle(const std::vector<BundleImage> &images) {
  Expected<std::string> bundler = findLLVMTool("clang-offload-bundler");
  if (!bundler)
    return bundler.takeError();
  std::vector<std::unique_ptr<TempFile>> files;
  // The host entry is empty: kcc's stubs are separate C++ sources.
  Expected<std::unique_ptr<TempFile>> host = TempFile::create("kcc", "host");
  if (!host)
    return host.takeError();
  if (Error e = writeFile((*host)->path, ""))
    return std::move(e);
  std::string targets = "--targets=host-x86_64-unknown-linux-gnu";
  std::vector<std::string> args = {*bundler, "--type=o"};
  std::vector<std::string> inputs = {"--input=" + (*host)->path.str().str()};
  for (const BundleImage &image : images) {
    Expected<std::unique_ptr<TempFile>> f = TempFile::create("kcc", "hsaco");
    if (!f)
      return f.takeError();
    if (Error e = writeFile((*f)->path, image.hsaco))
      return std::move(e);
    targets += "," + bundleTargetId(*image.target);
    inputs.push_back("--input=" + (*f)->path.str().str());
    files.push_back(std::move(*f));
  }
  Expected<std::unique_ptr<TempFile>> out = TempFile::create("kcc", "hipfb");
  if (!out)
    return out.takeError();
  args.push_back(targets);
  args.insert(args.end(), inputs.begin(), inputs.end());
  args.push_back("--output=" + (*out)->path.str().str());
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::string log;
  if (Error e = runTool(*bundler, argRefs, log))
    return std::move(e);
  return readFile((*out)->path);
}
