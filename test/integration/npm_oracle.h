// Independent implementations from npm as test oracles: scripts/test.sh installs the packages with
// scripts/npm_oracles.sh and exports IDGEN_NPM_DIR; the scripts test/oracle/<kind>.cjs drive them.
// A test that needs one fails (does not skip) without it.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "common.h"

namespace idgen::it {

// The repository's test/oracle/NAME, by the absolute path CMake gives (IDGEN_SOURCE_DIR): __FILE__
// may be relative to the build directory (ccache's base_dir rewrites the compiler's paths).
inline std::string oracle_script(const std::string& name) {
    return std::string(IDGEN_SOURCE_DIR) + "/test/oracle/" + name;
}

// Runs `node <script> <args>` with the packages' directory; returns its stdout, or "" with a
// test failure recorded when it could not run.
inline std::string run_oracle(const std::string& script, const std::string& args) {
    const std::string dir = env_or("IDGEN_NPM_DIR", "");
    if (dir.empty()) {
        ADD_FAILURE()
            << "IDGEN_NPM_DIR is not set: run scripts/npm_oracles.sh DIR and export it (scripts/test.sh does)";
        return "";
    }
    const std::string cmd = "IDGEN_NPM_DIR='" + dir + "' node '" + oracle_script(script) + "' " + args;
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) {
        ADD_FAILURE() << "cannot run " << cmd;
        return "";
    }
    std::string out;
    char buf[65536];
    std::size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int rc = pclose(p);
    EXPECT_EQ(rc, 0) << cmd << "\n" << out.substr(0, 2000);
    return out;
}

// A scratch file for the oracle to read; removed when the object goes.
class TempFile {
public:
    explicit TempFile(const std::string& tag)
        : path_("/tmp/idgen_it_" + tag + "_" + std::to_string(getpid()) + ".txt") {}
    ~TempFile() { std::remove(path_.c_str()); }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    void write(const std::string& text) const {
        std::ofstream f(path_, std::ios::binary | std::ios::trunc);
        f << text;
    }
    [[nodiscard]] const std::string& path() const { return path_; }

private:
    std::string path_;
};

inline std::size_t count_lines(const std::string& s) {
    std::size_t n = 0;
    for (char c : s) n += c == '\n';
    return n;
}

}  // namespace idgen::it
