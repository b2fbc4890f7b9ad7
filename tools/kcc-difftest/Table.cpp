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
  unsigned pass = 0, fail = 0, skip = 0;
  for (const Row &r : rows) {
    std::vector<std::string> cells = r.key;
    cells.resize(3);
    cells.insert(cells.end(), r.cells.begin(), r.cells.end());
    line(cells);
    for (const std::string &c : r.cells) {
      llvm::StringRef s(c);
      pass += s == "PASS";
      fail += s == "FAIL";
      skip += s.starts_with("SKIP");
    }
  }
  os << rows.size() << " cases: " << pass << " PASS, " << fail << " FAIL, "
     << skip << " SKIP\n";
  for (const Row &r : rows)
    if (!r.detail.empty())
      os << "FAIL " << r.key[0] << "/" << r.key[1] << "/" << r.key[2] << ": "
         << r.detail << "\n";
}
