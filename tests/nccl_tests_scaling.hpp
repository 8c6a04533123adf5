#pragma once
// A real nccl-tests table made `ratio` as fast: every row's times divided by it, algbw and
// busbw multiplied by it, printed as nccl-tests prints them (2 decimals), everything else
// kept. scaled_nccl_tests(text, 0.94) is the same machine 6% slower at every size.
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

inline std::string scaled_nccl_tests(const std::string& text, double ratio) {
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    // A result row: size count type redop root, then time algbw busbw #wrong per placement.
    if (w.size() == 13 && line.find('#') == std::string::npos) {
      char row[320];
      std::snprintf(row, sizeof row, "%12s  %12s  %8s  %6s  %6s  %7.2f  %6.2f  %6.2f  %6s  %7.2f  %6.2f  %6.2f  %6s",
                    w[0].c_str(), w[1].c_str(), w[2].c_str(), w[3].c_str(), w[4].c_str(), std::stod(w[5]) / ratio,
                    std::stod(w[6]) * ratio, std::stod(w[7]) * ratio, w[8].c_str(), std::stod(w[9]) / ratio,
                    std::stod(w[10]) * ratio, std::stod(w[11]) * ratio, w[12].c_str());
      line = row;
    }
    out += line + "\n";
  }
  return out;
}
