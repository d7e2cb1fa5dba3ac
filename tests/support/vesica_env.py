"""What the Vesica binary under test can do here, for the Python tests and tools that must skip
(exit 77) rather than fail where it cannot."""
import re
import subprocess


def gpu_visible(binary):
    """Whether `binary info` reports at least one usable GPU."""
    info = subprocess.run([binary, "info"], stdout=subprocess.PIPE, text=True).stdout
    return re.search(r"^GPUs visible: [1-9]", info, re.M) is not None
