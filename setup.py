"""The wheel's packages: ankibuild from src/, and the top-level templates/ as ankibuild.templates.

The default card templates and labels live beside decks/ and src/, where a bank's
own templates folder is laid over them; the wheel holds them inside the package,
so an installed ankibuild needs no repository. Each folder of templates/ is listed
as a package of its own, so setuptools ships its files as that package's data.
"""

from setuptools import find_namespace_packages, setup

TEMPLATES = ["ankibuild.templates", *(f"ankibuild.templates.{name}" for name in find_namespace_packages("templates"))]

setup(
    packages=[*find_namespace_packages("src"), *TEMPLATES],
    package_dir={"": "src", "ankibuild.templates": "templates"},
)
