#include "lossy_link.hpp"

#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace {

int unix_socket_at(const std::string& path, bool listen_there) {
    sockaddr_un a{};
    if (path.size() >= sizeof a.sun_path) return -1;
    a.sun_family = AF_UNIX;
    std::memcpy(a.sun_path, path.c_str(), path.size() + 1);
    const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    const auto* sa = reinterpret_cast<const sockaddr*>(&a);
    const bool ok = listen_there ? bind(fd, sa, sizeof a) == 0 && listen(fd, 4) == 0 : connect(fd, sa, sizeof a) == 0;
    if (!ok) {
        close(fd);
        return -1;
    }
    return fd;
}

// Writes all of buf; false when the peer is gone.
bool write_all(int fd, const char* buf, std::size_t n) {
    while (n > 0) {
        const ssize_t w = send(fd, buf, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        buf += w;
        n -= static_cast<std::size_t>(w);
    }
    return true;
}

}  // namespace

LossyLink::LossyLink(std::string host, std::string port) : host_(std::move(host)), port_(std::move(port)) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "order_retry.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("lossy link: mkdtemp failed in " + tmpl);
    dir_ = tmpl;
    path_ = dir_ + "/.s.PGSQL." + port_;
    listen_fd_ = unix_socket_at(path_, true);
    if (listen_fd_ < 0 || pipe(wake_) != 0) {
        rmdir(dir_.c_str());
        throw std::runtime_error("lossy link: cannot listen on " + path_);
    }
    thread_ = std::thread([this] { run(); });
}

LossyLink::~LossyLink() {
    stop_ = true;
    if (write(wake_[1], "x", 1) < 0) { /* the thread polls the pipe; nothing else to do */
    }
    thread_.join();
    close(listen_fd_);
    close(wake_[0]);
    close(wake_[1]);
    unlink(path_.c_str());
    rmdir(dir_.c_str());
}

int LossyLink::connect_upstream() const {
    if (!host_.empty() && host_[0] == '/') return unix_socket_at(host_ + "/.s.PGSQL." + port_, false);
    addrinfo hints{}, *res = nullptr;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host_.empty() ? "localhost" : host_.c_str(), port_.c_str(), &hints, &res) != 0) return -1;
    int fd = -1;
    for (addrinfo* p = res; p != nullptr && fd < 0; p = p->ai_next) {
        fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
        if (fd >= 0 && connect(fd, p->ai_addr, p->ai_addrlen) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    return fd;
}

void LossyLink::run() {
    while (!stop_) {
        pollfd p[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
        if (poll(p, 2, -1) < 0) continue;
        if (p[1].revents != 0) break;
        if ((p[0].revents & POLLIN) == 0) continue;
        const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client >= 0) relay(client);
    }
}

// One client connection at a time (the example makes one through the link).
void LossyLink::relay(int client) {
    const int server = connect_upstream();
    if (server < 0) {
        close(client);
        return;
    }
    char buf[8192];
    while (!stop_) {
        pollfd p[3] = {{client, POLLIN, 0}, {server, POLLIN, 0}, {wake_[0], POLLIN, 0}};
        if (poll(p, 3, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (p[2].revents != 0) break;
        if (p[0].revents != 0) {
            const ssize_t n = recv(client, buf, sizeof buf, 0);
            if (n <= 0 || !write_all(server, buf, static_cast<std::size_t>(n))) break;
        }
        if (p[1].revents != 0) {
            const ssize_t n = recv(server, buf, sizeof buf, 0);
            if (n <= 0) break;
            if (armed_) {
                // The server has answered; the client will never see it.
                armed_ = false;
                lost_ = true;
                break;
            }
            if (!write_all(client, buf, static_cast<std::size_t>(n))) break;
        }
    }
    close(server);
    close(client);
}
