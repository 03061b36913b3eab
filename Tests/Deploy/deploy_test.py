#!/usr/bin/env python3
"""The deployment recipes hold what docs/deploy.md says they do: deploy/haproxy.cfg is a
configuration HAProxy accepts (scripts/fleet-test runs it), and the Kubernetes manifests of
deploy/k8s have the keys that make them work together — probes through `layoutctl ping` on
the socket the configuration listens on, the container port and the Service on its TCP
listener, the token a file (subPath) no other user may read at the path `auth.tokenFile`
names, writable folders under a read-only root — and carry a configuration that
`layoutd --check-config` accepts. (No cluster runs them here.)

usage: Tests/Deploy/deploy_test.py [--binary PATH]   (scripts/test runs it)
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
K8S = os.path.join(ROOT, "deploy", "k8s")
BINARY = os.path.join(ROOT, ".build", "debug", "layoutd")


def manifest(name):
    with open(os.path.join(K8S, name)) as f:
        return yaml.safe_load(f)


class KubernetesManifests(unittest.TestCase):
    def setUp(self):
        self.deployment, self.service = manifest("deployment.yaml"), manifest("service.yaml")
        self.config = json.loads(manifest("configmap.yaml")["data"]["layoutd.json"])
        self.pod = self.deployment["spec"]["template"]["spec"]
        self.container = self.pod["containers"][0]
        self.mounts = {m["name"]: m for m in self.container["volumeMounts"]}
        self.volumes = {v["name"]: v for v in self.pod["volumes"]}

    def listener(self, scheme):
        return next(a[len(scheme) + 1:] for a in self.config["listen"] if a.startswith(scheme + ":"))

    def test_probes_ping_the_configured_socket(self):
        socket_path = self.listener("unix")
        for probe in ["startupProbe", "readinessProbe", "livenessProbe"]:
            self.assertEqual(self.container[probe]["exec"]["command"], ["layoutctl", "--socket", socket_path, "ping"], probe)
        run = self.mounts["run"]["mountPath"]
        self.assertEqual(os.path.dirname(os.path.dirname(socket_path)), run, "the socket's folder is made inside the run volume")
        self.assertIn("emptyDir", self.volumes["run"])

    def test_the_service_reaches_the_tcp_listener(self):
        port = int(self.listener("tcp").rsplit(":", 1)[1])
        ports = {p["name"]: p for p in self.container["ports"]}
        target = self.service["spec"]["ports"][0]["targetPort"]
        self.assertEqual(ports[target]["containerPort"], port)
        labels = self.deployment["spec"]["template"]["metadata"]["labels"]
        self.assertEqual(self.service["spec"]["selector"], labels)
        self.assertEqual(self.deployment["spec"]["selector"]["matchLabels"], labels)

    def test_the_token_is_a_private_file_where_the_configuration_looks(self):
        token = self.mounts["token"]
        self.assertEqual(token["mountPath"], self.config["auth"]["tokenFile"])
        self.assertIn("subPath", token, "a Secret volume's files are links, which layoutd does not follow")
        self.assertEqual(self.volumes["token"]["secret"]["defaultMode"] & 0o007, 0, "others may not read the token")
        self.assertIn("fsGroup", self.pod["securityContext"])

    def test_a_read_only_root_with_its_writable_folders(self):
        self.assertTrue(self.container["securityContext"]["readOnlyRootFilesystem"])
        self.assertTrue(self.pod["securityContext"]["runAsNonRoot"])
        cache = os.path.dirname(self.config["shapeCacheFile"])
        self.assertEqual(self.mounts["cache"]["mountPath"], cache)

    def test_the_image_runs_the_mounted_configuration_with_the_pinned_fonts(self):
        with open(os.path.join(K8S, "Dockerfile")) as f:
            dockerfile = f.read()
        config_path = os.path.join(self.mounts["config"]["mountPath"], "layoutd.json")
        self.assertIn(f'"--config", "{config_path}"', dockerfile)
        with open(os.path.join(ROOT, "scripts", "setup")) as f:
            fonts = [word for line in f for word in line.split() if word.startswith("fonts-")]
        self.assertTrue(fonts)
        for package in fonts:
            self.assertIn(package, dockerfile, f"the image installs {package}, which config/fonts.conf names")
        user = dockerfile.split("USER ", 1)[1].split()[0]
        self.assertEqual(user, f"{self.pod['securityContext']['runAsUser']}:{self.pod['securityContext']['runAsGroup']}")

    def test_layoutd_accepts_the_configuration(self):
        with tempfile.TemporaryDirectory() as folder:
            token = os.path.join(folder, "token")
            with open(os.open(token, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
                f.write("a-token-of-the-deploy-test-0123456789")
            # The image's paths, but for the fonts and the token, which are this checkout's.
            config = dict(self.config, fontConfig=os.path.join(ROOT, "config", "fonts.conf"), auth={"tokenFile": token})
            path = os.path.join(folder, "layoutd.json")
            with open(path, "w") as f:
                json.dump(config, f)
            done = subprocess.run([BINARY, "--check-config", path], capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("listen: " + ", ".join(self.config["listen"]), done.stdout)


class HAProxyRecipe(unittest.TestCase):
    def test_haproxy_accepts_it(self):
        env = dict(os.environ, LAYOUTD_FRONTEND="127.0.0.1:7000", LAYOUTD_HAPROXY_STATS="/tmp/stats.sock",
                   **{f"LAYOUTD_NODE{i}": f"/run/layoutd/node{i}.sock" for i in (1, 2, 3)})
        done = subprocess.run(["haproxy", "-c", "-f", os.path.join(ROOT, "deploy", "haproxy.cfg")], env=env,
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)


class TheGuide(unittest.TestCase):
    def test_docs_deploy_names_every_recipe_file(self):
        with open(os.path.join(ROOT, "docs", "deploy.md")) as f:
            guide = f.read()
        for name in ["deploy/haproxy.cfg", "scripts/fleet-test", *(f"deploy/k8s/{n}" for n in sorted(os.listdir(K8S)))]:
            self.assertIn(name, guide)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=BINARY)
    args, rest = parser.parse_known_args()
    BINARY = args.binary
    unittest.main(argv=[sys.argv[0], *rest])
