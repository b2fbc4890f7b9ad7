//===- Table.cpp - kcc-difftest's result table ----------------------------===//
#include "tools/kcc-difftest/Table.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>

using namespace kcc::difftest;

void Table::addRow(std::vector<std::string> key, std::vector<std::string> cells,
                   std::string detail) {
  rows.push_back({std::move(key), std::move(cells), std::move(detail)});
}

void Table::print(llvm::raw_ostream &os) const {
  std::vector<std::string> header = {"kernel", "specialization", "case"};
  header.insert(header.end(), columns.begin(), columns.end());
  std::vector<size_t> width(header.size());
  for (size_t i = 0; i < header.size(); ++i)
    width[i] = header[i].size();
  for (const Row &r : rows) {
    for (size_t i = 0; i < r.key.size() && i < 3; ++i)
      width[i] = std::max(width[i], r.key[i].size());
    for (size_t i = 0; i < r.cells.size(); ++i)
      width[3 + i] = std::max(width[3 + i], r.cells[i].size());
  }
  auto line = [&](const std::vector<std::string> &cells) {
    std::string text;
    for (size_t i = 0; i < cells.size(); ++i) {
      text += cells[i];
      if (i + 1 < cells.size())
        text.append(width[i] - cells[i].size() + 2, ' ');
    }
    os << text << "\n";
  };
  line(header);
  size_t legs = columns.size() - std::min<size_t>(extra, columns.size());
  auto isSkip = [](llvm::StringRef s) { return s.starts_with("SKIP"); };
  std::vector<unsigned> legPass(legs), legFail(legs), legSkip(legs);
  unsigned pass = 0, fail = 0, skip = 0;
  for (const Row &r : rows) {
    line([&] {
      std::vector<std::string> cells = r.key;
      cells.resize(3);
      cells.insert(cells.end(), r.cells.begin(), r.cells.end());
      return cells;
    }());
    bool anyPass = false, anyFail = false;
    for (size_t i = 0; i < r.cells.size() && i < legs; ++i) {
      llvm::StringRef s(r.cells[i]);
      legPass[i] += s == "PASS";
      legFail[i] += s == "FAIL";
      legSkip[i] += isSkip(s);
      anyPass |= s == "PASS";
      anyFail |= s == "FAIL";
      if (summary == Summary::Cells) {
        pass += s == "PASS";
        fail += s == "FAIL";
        skip += isSkip(s);
      }
    }
    if (summary == Summary::CasesAndLegs) {
      fail += anyFail;
      pass += !anyFail && anyPass;
      skip += !anyFail && !anyPass;
    }
  }
  os << rows.size() << (rows.size() == 1 ? " case: " : " cases: ") << pass
     << " PASS, " << fail << " FAIL, " << skip << " SKIP\n";
  if (summary == Summary::CasesAndLegs && legs > 1)
    for (size_t i = 0; i < legs; ++i)
      os << "  " << columns[i] << ": " << legPass[i] << " PASS, " << legFail[i]
         << " FAIL, " << legSkip[i] << " SKIP\n";
  for (const Row &r : rows)
    if (!r.detail.empty())
      os << "FAIL " << r.key[0] << "/" << r.key[1] << "/" << r.key[2] << ": "
         << r.detail << "\n";
}
