"""Free TCP ports for rendezvous endpoints (picked at run time)."""
import socket

__all__ = ["free_ports"]


def free_ports(count, host="127.0.0.1"):
    """``count`` distinct ports nothing listens on now (held open together so they differ)."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((host, 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()
