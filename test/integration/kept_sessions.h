// Sessions kept between statements, for tests that run many one-statement calls (the Citus tests'
// run(node, sql), the logical replication tests' polls).
//
// A new session costs tens of milliseconds of CPU on a 2-core virtual machine (a backend forked,
// its page faults and catalog caches), and on a Citus coordinator a new connection to each worker
// for the first distributed statement, with the same costs there. Kept, a coordinator's session
// also keeps its connections to the workers, as an application's pooled session does.
//
// A session is used again only when nothing of the last statement stays in it: a statement that
// failed or may have left something in the session (SET, set_config, LISTEN, PREPARE, a temporary
// object, an advisory lock, a transaction begun: any statement that names one) ends its session.
// A statement that may kill or stop a server's processes (COPY ... TO PROGRAM, pg_terminate_backend,
// pg_ctl) runs on a session of its own and ends every kept session of the thread, as does a session
// with anything waiting to be read (a FATAL its backend sent before it went). Sessions are per thread.
#pragma once

#include <poll.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <string>

namespace idgen::kept {

inline std::map<std::string, std::unique_ptr<pqxx::connection>>& kept() {
    thread_local std::map<std::string, std::unique_ptr<pqxx::connection>> sessions;
    return sessions;
}

// Ends every kept session of the calling thread.
inline void forget_all() { kept().clear(); }

inline std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

inline bool names_any(const std::string& up, std::initializer_list<const char*> words) {
    for (const char* w : words)
        if (up.find(w) != std::string::npos) return true;
    return false;
}

// Idle, open, and nothing the server sent since the last statement.
inline bool usable(pqxx::connection& c) {
    if (!c.is_open()) return false;
    const int fd = c.sock();
    if (fd < 0) return false;
    pollfd p{fd, POLLIN, 0};
    return ::poll(&p, 1, 0) == 0;
}

// Runs `sql` on a kept session to `dsn` (made when there is none or it cannot be used).
inline pqxx::result run(const std::string& dsn, const std::string& sql) {
    const std::string up = upper(sql);
    if (names_any(up, {"TO PROGRAM", "PG_TERMINATE_BACKEND", "PG_CTL"})) {
        forget_all();
        pqxx::connection c(dsn);
        pqxx::nontransaction tx(c);
        return tx.exec(sql);
    }
    auto& sessions = kept();
    auto it = sessions.find(dsn);
    if (it != sessions.end() && !usable(*it->second)) {
        sessions.erase(it);
        it = sessions.end();
    }
    if (it == sessions.end()) it = sessions.emplace(dsn, std::make_unique<pqxx::connection>(dsn)).first;
    pqxx::connection& c = *it->second;
    try {
        pqxx::result r;
        {
            pqxx::nontransaction tx(c);
            r = tx.exec(sql);
        }
        if (names_any(up, {"SET", "LISTEN", "PREPARE", "TEMP", "ADVISORY", "DISCARD", "BEGIN", "START TRANSACTION"}))
            sessions.erase(dsn);
        return r;
    } catch (...) {
        sessions.erase(dsn);
        throw;
    }
}

}  // namespace idgen::kept
