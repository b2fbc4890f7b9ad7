// Unit tests for the inline-PTX table the NVVM lowering formats and the
// simulator matches (targets/PtxInlineAsm.h): every template round-trips,
// the exact text of the forms kcc emitted before the table existed, and
// where a non-instance departs from its template.
#include "targets/PtxInlineAsm.h"

#include <doctest/doctest.h>

using namespace kcc::ptx;

TEST_CASE("ptx inline asm: wgmma.mma_async formats as kcc emits it") {
  std::string text = format(kWgmmaMma, AsmFields()
                                           .setRange("d", 0, 4)
                                           .set("a", 4)
                                           .set("b", 5)
                                           .set("scale", 6)
                                           .set("n", 8)
                                           .set("elem", "f16")
                                           .set("sa", 1)
                                           .set("sb", 1)
                                           .set("ta", 0)
                                           .set("tb", 1));
  CHECK(text == "{\n.reg .pred p;\nsetp.ne.b32 p, $6, 0;\n"
                "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 "
                "{$0, $1, $2, $3}, $4, $5, p, 1, 1, 0, 1;\n}");
  std::optional<AsmFields> f = match(kWgmmaMma, text);
  REQUIRE(f);
  CHECK(f->ints["n"] == 8);
  CHECK(f->ints["scale"] == 6);
  CHECK(f->ints["tb"] == 1);
  CHECK(f->words["elem"] == "f16");
  CHECK(f->regs["d"] == std::vector<unsigned>{0, 1, 2, 3});
}

TEST_CASE("ptx inline asm: a non-instance says where it departs") {
  std::string why;
  CHECK_FALSE(match(kWgmmaMma,
                    "{\n.reg .pred p;\nsetp.ne.b32 p, $6, 0;\n"
                    "wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 "
                    "{$0, $1}, $2, $3, p, 1, 1, 0, 0;\n}",
                    &why));
  CHECK(why.find("expected 'f32' at 'f16.f16.f16") != std::string::npos);
  // A field used twice must agree with itself.
  CHECK_FALSE(match(kWgmmaMma,
                    "{\n.reg .pred p;\nsetp.ne.b32 p, $6, 0;\n"
                    "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.bf16 "
                    "{$0, $1}, $2, $3, p, 1, 1, 0, 0;\n}",
                    &why));
  CHECK(why.find("<elem> differs from its first use") != std::string::npos);
  // Trailing text is not an instance.
  CHECK_FALSE(
      match(kTcgen05WaitLd, "tcgen05.wait::ld.sync.aligned; nop;", &why));
  CHECK(why.find("unexpected text") != std::string::npos);
  CHECK_FALSE(match(kTcgen05Dealloc,
                    "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, x;",
                    &why));
  CHECK(why.find("expected an integer for <cols>") != std::string::npos);
}

TEST_CASE("ptx inline asm: the tcgen05 forms") {
  CHECK(format(kTcgen05Alloc, AsmFields().set("cols", 128)) ==
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], 128;");
  CHECK(format(kTcgen05AllocRelinquish, AsmFields().set("cols", 256)) ==
        "tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [$0], 256;\n"
        "tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  // The plain form does not match the one that relinquishes, nor back.
  CHECK_FALSE(match(kTcgen05Alloc, format(kTcgen05AllocRelinquish,
                                          AsmFields().set("cols", 32))));
  CHECK_FALSE(match(kTcgen05AllocRelinquish,
                    format(kTcgen05Alloc, AsmFields().set("cols", 32))));
  std::optional<AsmFields> d = match(
      kTcgen05Dealloc, "tcgen05.dealloc.cta_group::1.sync.aligned.b32 $0, 64;");
  REQUIRE(d);
  CHECK(d->ints["cols"] == 64);
  std::string ld = format(kTcgen05Ld32x32bX32,
                          AsmFields().setRange("d", 0, 32).set("addr", 32));
  CHECK(ld.rfind("tcgen05.ld.sync.aligned.32x32b.x32.b32 {$0, $1, ", 0) == 0);
  REQUIRE(ld.size() > 12);
  CHECK(ld.substr(ld.size() - 12) == "$31}, [$32];");
  std::optional<AsmFields> l = match(kTcgen05Ld32x32bX32, ld);
  REQUIRE(l);
  CHECK(l->regs["d"].size() == 32);
  CHECK(l->ints["addr"] == 32);
  for (const AsmTemplate *t :
       {&kTcgen05FenceBefore, &kTcgen05FenceAfter, &kTcgen05Mma, &kTcgen05MmaI8,
        &kTcgen05Commit, &kTcgen05WaitLd, &kOperandFence})
    CHECK(match(*t, format(*t, AsmFields())));
  CHECK(match(kOperandFence, ""));
  CHECK_FALSE(match(kOperandFence, "nop;"));
}
