import requests


@dataclass
class Helper(Base, metaclass=Meta):
    """A helper."""

    endpoint = "http://example.invalid"

    def send(self, data):
        """Send data."""
        return requests.post(self.endpoint, data=data)

    @staticmethod
    def build():
        def inner(v):
            return v * 2
        return inner


def outer(items):
    def closure(x):
        return x + len(items)
    return [closure(i) for i in items]
