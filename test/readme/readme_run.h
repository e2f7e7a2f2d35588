// Runs a README block's statements in one session and checks the results the page shows
// (readme_blocks.h has the conventions): for the README layer (readme_test.cpp) and for the Citus
// layer, which runs docs/citus.md's `sql citus` blocks on its coordinator (test/citus).
#pragma once

#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "readme_blocks.h"

namespace idgen::readme {

inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

inline std::string describe(const Expectation& e) {
    switch (e.kind) {
        case Expectation::Kind::Error: return "ERROR " + e.sqlstate + (e.message.empty() ? "" : ": " + e.message);
        case Expectation::Kind::Shape: return "a value shaped like " + e.example;
        case Expectation::Kind::Rows: {
            std::string s;
            for (const auto& r : e.rows) s += "\n      " + r;
            return s;
        }
        case Expectation::Kind::None: break;
    }
    return "";
}

// Runs block `b`'s statements in `session`, as psql with ON_ERROR_STOP would; returns what went
// wrong ("" when nothing did). `where` names the server in the messages.
inline std::string run_statements(pqxx::connection& session, const Block& b, const std::string& where) {
    std::string failures;
    for (const Statement& s : b.statements) {
        const std::string at = b.file + ":" + std::to_string(s.line) + " (" + where + "): " + first_line(s.sql);
        const Expectation& e = s.expect;
        std::vector<std::string> rows;
        std::string state, message;
        bool failed = false;
        try {
            pqxx::nontransaction tx(session);
            const pqxx::result r = tx.exec(s.sql);
            for (const auto& row : r) {
                std::string line;
                for (pqxx::row::size_type i = 0; i < row.size(); ++i) {
                    if (i > 0) line += " | ";
                    line += row[i].is_null() ? "NULL" : row[i].c_str();
                }
                rows.push_back(line);
            }
        } catch (const pqxx::sql_error& x) {
            failed = true;
            state = x.sqlstate();
            // libpqxx 6.4 throws this class for 42501 without passing the SQLSTATE on.
            if (state.empty() && dynamic_cast<const pqxx::insufficient_privilege*>(&x) != nullptr) state = "42501";
            message = first_line(x.what());
            if (starts_with(message, "ERROR:")) message = trim(message.substr(6));
        } catch (const std::exception& x) {
            return failures + at + "\n    lost the session: " + x.what() + "\n";
        }

        if (e.kind == Expectation::Kind::Error) {
            if (!failed) {
                failures += at + "\n    expected " + describe(e) + ", but it succeeded\n";
            } else if (state != e.sqlstate || (!e.message.empty() && message != e.message)) {
                failures +=
                    at + "\n    expected " + describe(e) + "\n    got      ERROR " + state + ": " + message + "\n";
            }
            continue;
        }
        if (failed) {
            // ON_ERROR_STOP: the rest of the block is not run.
            return failures + at + "\n    failed: ERROR " + state + ": " + message + "\n";
        }
        if (e.kind == Expectation::Kind::Rows && rows != e.rows) {
            std::string got;
            for (const auto& r : rows) got += "\n      " + r;
            if (rows.empty()) got = " (no rows)";
            failures += at + "\n    expected:" + describe(e) + "\n    got:" + got + "\n";
        }
        if (e.kind == Expectation::Kind::Shape && (rows.size() != 1 || !same_shape(e.example, rows[0]))) {
            failures += at + "\n    expected " + describe(e) + "\n    got      " +
                        (rows.size() == 1 ? rows[0] : std::to_string(rows.size()) + " rows") + "\n";
        }
    }
    return failures;
}

}  // namespace idgen::readme
