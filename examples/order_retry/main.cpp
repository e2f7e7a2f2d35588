// order_retry: create an order exactly once although the reply to its COMMIT is lost.
//
//   order_retry [CONNINFO]        e.g. order_retry "dbname=shop"   (PG* variables apply)
//
// The application assigns the order's ID (a ULID) and the request's idempotency key (a UUIDv7)
// before it talks to the database. Attempt 1 runs idempotency_begin() (state "new"), inserts the
// order, stores the response with idempotency_finish() and commits, but the reply to COMMIT is
// dropped on the way back (a relay between the example and the server loses it), so the client
// cannot tell whether the order exists. Attempt 2 sends the same request with the same key over a
// new connection: idempotency_begin() answers "replay" with the stored response, and nothing is
// inserted twice. A plain retry of the INSERT, without the key, fails on the order's primary key.
// The program checks that the table holds exactly one order with the ID it assigned, and exits 0
// only then.
//
// Needs a database with the id_gen extension (0.2.0, with idempotency_begin()) and the right to
// create a schema. Exit status: 0 one order, 1 anything else, 2 no idempotency store on the server.
#include <iostream>
#include <pqxx/pqxx>
#include <string>

#include "id_gen/id_gen.hpp"
#include "id_gen/pqxx.hpp"
#include "lossy_link.hpp"

namespace {

// One request: what the client sends, identical on every attempt.
struct Request {
    std::string scope;      // who and what: bound by the server to the connected role as well
    std::string key;        // the idempotency key, a UUIDv7
    std::string payload;    // the request body (JSON)
    id_gen::Ulid order_id;  // assigned by the application, before the first attempt
};

struct Outcome {
    std::string state;      // "new", "replay" or "resume"
    int attempts = 0;       // attempts the server has seen for this key
    id_gen::Ulid order_id;  // the order the response names
};

// One attempt of the request over `conn`, filling `out` as it goes. With `link` given, the reply
// to COMMIT is lost.
void attempt(pqxx::connection& conn, const Request& req, const id_gen::Ulid& attempt_id, LossyLink* link,
             Outcome& out) {
    pqxx::work tx(conn);
    const pqxx::row begin = tx.exec_params1(
        "SELECT state, response ->> 'order_id', attempts "
        "FROM idempotency_begin(scope => $1, key => $2, fingerprint => idempotency_fingerprint($3::jsonb), "
        "                       attempt_id => $4)",
        req.scope, req.key, req.payload, attempt_id);
    out.state = begin[0].as<std::string>();
    out.attempts = begin[2].is_null() ? 0 : begin[2].as<int>();
    if (out.state == "replay") {
        // Done before: the stored response, no work. (Read-only, so the commit's reply matters not.)
        out.order_id = begin[1].as<id_gen::Ulid>();
        tx.commit();
        return;
    }
    // "new" (or "resume" after an attempt that died mid-way): do the work. The order's ID is the
    // one the application assigned, whichever attempt gets here.
    tx.exec_params(
        "INSERT INTO order_retry.orders (id, customer, total) "
        "VALUES ($1, $2::jsonb ->> 'customer', ($2::jsonb ->> 'total')::numeric)",
        req.order_id, req.payload);
    tx.exec_params("SELECT idempotency_finish($1, $2, jsonb_build_object('order_id', $3::text, 'status', 'created'))",
                   req.scope, req.key, req.order_id);
    if (link != nullptr) link->lose_next_reply();
    out.order_id = req.order_id;
    tx.commit();  // the order and the key's response commit together
}

}  // namespace

int main(int argc, char** argv) {
    const std::string conninfo = argc > 1 ? argv[1] : "";
    try {
        pqxx::connection direct(conninfo);
        {
            pqxx::work tx(direct);
            if (tx.exec1("SELECT count(*) = 0 FROM pg_proc WHERE proname = 'idempotency_begin'")[0].as<bool>()) {
                std::cerr << "order_retry: this database has no idempotency_begin() (id_gen 0.2.0 or later)\n";
                return 2;
            }
            tx.exec("CREATE SCHEMA IF NOT EXISTS order_retry");
            tx.exec(
                "CREATE TABLE IF NOT EXISTS order_retry.orders "
                "(id ulid PRIMARY KEY, customer text NOT NULL, total numeric NOT NULL)");
            tx.commit();
        }

        // The request, made once. The key and the order ID are the application's own.
        id_gen::UlidGenerator ulids;
        const Request req{"orders:POST /orders", id_gen::new_uuidv7().to_string(),
                          R"({"customer": "c-1842", "items": [{"sku": "A-7", "qty": 2}], "total": "19.90"})",
                          ulids.next()};
        std::cout << "request: order " << req.order_id << ", idempotency key " << req.key << "\n";

        // Attempt 1, through a relay that loses the reply to COMMIT.
        Outcome first;
        bool answered = false;
        {
            LossyLink link(direct.hostname(), direct.port());
            pqxx::connection lossy(conninfo + " host=" + link.dir() + " port=" + link.port());
            try {
                attempt(lossy, req, ulids.next(), &link, first);
                answered = true;
                std::cout << "attempt 1: state " << first.state << ", committed and answered\n";
            } catch (const pqxx::in_doubt_error&) {
                std::cout << "attempt 1: state " << first.state
                          << ", order inserted, COMMIT sent; the reply was "
                             "lost (pqxx::in_doubt_error): did the order go through?\n";
            } catch (const pqxx::broken_connection&) {
                std::cout << "attempt 1: state " << first.state
                          << ", order inserted, COMMIT sent; the connection "
                             "broke before the reply (pqxx::broken_connection): did the order go through?\n";
            }
            if (!link.lost_a_reply()) {
                std::cout << "the relay lost no reply: the example did not do what it is for\n";
                return 1;
            }
        }

        // Attempt 2: the same request, the same key, a new connection.
        pqxx::connection retry(conninfo);
        Outcome second;
        attempt(retry, req, ulids.next(), nullptr, second);
        std::cout << "attempt 2: state " << second.state << " (attempts seen: " << second.attempts << "), order "
                  << second.order_id << "\n";

        // Without the key, the application's own ID still stops a second order: a plain retry of the
        // INSERT carries the same primary key.
        bool duplicate_refused = false;
        try {
            pqxx::work tx(retry);
            tx.exec_params("INSERT INTO order_retry.orders (id, customer, total) VALUES ($1, 'c-1842', 19.90)",
                           req.order_id);
            tx.commit();
        } catch (const pqxx::unique_violation&) {
            duplicate_refused = true;
            std::cout << "a plain retry of the INSERT: unique_violation on the order's ID, no second order\n";
        }

        pqxx::work tx(retry);
        const int rows =
            tx.exec_params1("SELECT count(*) FROM order_retry.orders WHERE id = $1", req.order_id)[0].as<int>();
        std::cout << "orders with id " << req.order_id << ": " << rows << "\n";
        const bool ok = !answered && first.state == "new" && second.state == "replay" &&
                        second.order_id == req.order_id && duplicate_refused && rows == 1;
        std::cout << (ok ? "exactly one order: the retry was answered from the stored response\n"
                         : "FAILED: expected a replay and exactly one order\n");
        return ok ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "order_retry: " << e.what() << "\n";
        return 1;
    }
}
