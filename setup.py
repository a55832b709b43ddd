"""Which packages and files ship (everything else is in pyproject.toml).

Every ``evalgui*`` package is found, so a new one cannot be forgotten. resources/ (sample data,
icons, help) ships inside the package as ``evalgui._resources``, so that importlib.resources finds
it in a wheel, an editable install or a PyInstaller bundle alike (evalgui/core/resources.py);
``packages.find`` cannot give it that name, hence this file. Each of its folders ships all its files.
"""

from setuptools import find_namespace_packages, find_packages, setup

RESOURCES = "evalgui._resources"
resource_packages = [RESOURCES] + [f"{RESOURCES}.{name}" for name in
                                   find_namespace_packages("resources", exclude=["*__pycache__*"])]

setup(packages=find_packages(include=["evalgui", "evalgui.*"]) + resource_packages,
      package_dir={RESOURCES: "resources"},
      package_data={package: ["*"] for package in resource_packages},
      exclude_package_data={"": ["*.pyc"]})
