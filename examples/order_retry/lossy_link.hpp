// A relay between the example and the server that can lose one reply on purpose: it forwards
// bytes both ways, and once armed it forwards the client's next message to the server but drops
// the server's answer and closes both connections. The server has done the work (a COMMIT has
// committed) and the client never hears about it: the failure an idempotency key exists for.
//
// The client side is a Unix socket in a private directory: connect with host=<dir()> port=<port()>.
// The server side is where a direct connection went (a Unix socket directory or a TCP host).
#pragma once

#include <atomic>
#include <string>
#include <thread>

class LossyLink {
public:
    // Relays to `host` (a directory starting with '/': the server's Unix socket there; otherwise a
    // TCP host name) on `port`. Throws std::runtime_error when it cannot listen.
    LossyLink(std::string host, std::string port);
    ~LossyLink();
    LossyLink(const LossyLink&) = delete;
    LossyLink& operator=(const LossyLink&) = delete;

    [[nodiscard]] const std::string& dir() const { return dir_; }
    [[nodiscard]] const std::string& port() const { return port_; }

    // Drop the server's next reply and close the connection.
    void lose_next_reply() { armed_ = true; }
    // Whether a reply was dropped.
    [[nodiscard]] bool lost_a_reply() const { return lost_; }

private:
    void run();
    void relay(int client);
    int connect_upstream() const;

    std::string host_, port_, dir_, path_;
    int listen_fd_ = -1;
    int wake_[2] = {-1, -1};
    std::atomic<bool> armed_{false}, lost_{false}, stop_{false};
    std::thread thread_;
};
