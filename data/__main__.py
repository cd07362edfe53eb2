"""`python -m data`: clean one uploaded word list read from stdin (the child of read_upload)."""

from data import bounded
from data.upload import MAX_UPLOAD_BYTES, read_in_child

if __name__ == "__main__":
    bounded.limit()
    bounded.serve(read_in_child, MAX_UPLOAD_BYTES)
