"""The one exception that the data package raises for bad input."""


class DatasetError(ValueError):
    """Explain, in one learner-facing sentence, why a word list cannot be used."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
