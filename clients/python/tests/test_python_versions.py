"""The package is written for Python 3.9, the oldest it supports (pyproject.toml's requires-python)."""

from __future__ import annotations

import ast
import unittest
from pathlib import Path

import tollgate

package = Path(tollgate.__file__).parent


class PythonVersionsTest(unittest.TestCase):
    def test_every_module_parses_as_python_3_9(self) -> None:
        modules = sorted(package.glob("*.py"))
        self.assertGreater(len(modules), 5)
        for module in modules:
            with self.subTest(module.name):
                ast.parse(module.read_text(encoding="utf-8"), filename=str(module), feature_version=(3, 9))

    def test_annotations_are_evaluated_lazily_everywhere(self) -> None:
        # With `from __future__ import annotations`, `Optional[X]` spelt in 3.9's way is only read by
        # typing.get_type_hints; a module without it would evaluate annotations at import.
        for module in sorted(package.glob("*.py")):
            source = module.read_text(encoding="utf-8")
            if "->" in source or ": " in source:
                with self.subTest(module.name):
                    self.assertTrue(
                        "from __future__ import annotations" in source
                        or module.name in ("__init__.py", "version.py"),
                        module.name,
                    )

    def test_the_package_ships_its_type_information(self) -> None:
        self.assertTrue((package / "py.typed").is_file())


if __name__ == "__main__":
    unittest.main()
