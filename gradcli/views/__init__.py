"""Views format a Report; they compute no autograd facts of their own."""
