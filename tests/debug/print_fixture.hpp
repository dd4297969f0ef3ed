// Test support for probe::print and probe::callback: prints go to a file in a temporary
// folder; read() waits for them with a barrier and returns the file's text.
#pragma once
#include <probe/probe.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../support/capture.hpp"

namespace probe_test {

class print_file {
 public:
  explicit print_file(const std::string& extra_flags = "") : path_(dir_ / "prints.txt") {
    probe::set_flags(("--probe_print_to=" + path_ + " " + extra_flags).c_str());
  }
  ~print_file() {
    probe::effects_barrier();
    probe::set_flags("");
  }
  const std::string& path() const { return path_; }
  std::string read() const {
    probe::effects_barrier();
    return peek();
  }
  // What is in the file now, without waiting.
  std::string peek() const {
    std::ifstream in(path_);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::vector<std::string> lines() const {
    std::vector<std::string> out;
    std::stringstream s(read());
    std::string l;
    while (std::getline(s, l)) out.push_back(l);
    return out;
  }

 private:
  temp_dir dir_;
  std::string path_;
};

}  // namespace probe_test
