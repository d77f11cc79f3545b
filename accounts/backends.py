from axes.backends import AxesStandaloneBackend


class LoginLockoutBackend(AxesStandaloneBackend):
    """django-axes' lockout check, for logins made through a page. A login without a request
    (Django's test client, a shell) is no guess made over the network: it goes straight to the
    next backend instead of failing."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)
