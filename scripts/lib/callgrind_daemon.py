"""A release layoutd under `valgrind --tool=callgrind`, for the profile scripts
(scripts/profile-editor, scripts/profile-chat): started on a socket in a scratch folder with
the given settings, and the instructions of work sent through that socket counted by zeroing
callgrind's counts before it and dumping them after (`callgrind_control`), on every daemon
thread. Instruction counts repeat where the clock does not."""
import json
import os
import shutil
import subprocess
import time


class CallgrindDaemon:
    def __init__(self, binary, settings, folder):
        """Starts a copy of `binary` with the configuration `settings` (a dict) in `folder`."""
        self.folder = folder
        # valgrind cannot read the release build's debug information: a copy without it.
        copy = os.path.join(folder, "layoutd")
        shutil.copy(binary, copy)
        subprocess.run(["strip", "--strip-debug", copy], check=True)
        config, self.sock = os.path.join(folder, "config.json"), os.path.join(folder, "s.sock")
        with open(config, "w") as f:
            json.dump(settings, f)
        self.process = subprocess.Popen(["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/cg.%p", copy,
                                         "--config", config, "--socket", self.sock], cwd=folder,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(300):
            if os.path.exists(self.sock):
                break
            time.sleep(0.5)

    def counted(self, name, work):
        """Instructions of `work()`: callgrind's counts zeroed before and dumped (as `name`) after."""
        pid = str(self.process.pid)
        subprocess.run(["callgrind_control", "-z", pid], capture_output=True, check=True)
        work()
        subprocess.run(["callgrind_control", "-d", name, pid], capture_output=True, check=True)
        for f in os.listdir(self.folder):
            path = os.path.join(self.folder, f)
            if f.startswith("cg.") and f"Trigger: dump {name}\n" in open(path).read(4096):
                return next(int(l.split()[1]) for l in open(path) if l.startswith("summary:"))
        raise SystemExit(f"callgrind: no dump for {name}")

    def stop(self):
        self.process.terminate()
        self.process.wait()

    def keep_dumps(self, destination):
        """Copies the dumps (`cg.PID.N`, each naming its trigger) into `destination`."""
        os.makedirs(destination, exist_ok=True)
        for f in os.listdir(self.folder):
            if f.startswith("cg."):
                shutil.copy(os.path.join(self.folder, f), destination)
