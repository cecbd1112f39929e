"""A run description is frozen all the way down: every array field is a read-only view, the caller's array
is left writeable, and the other fields are kept as given."""

import numpy as np
import pytest

from verify.instances import RunDescription


def test_every_array_field_is_a_read_only_view_of_the_callers_array():
    records, data = np.arange(4.0), np.ones((2, 3))
    run = RunDescription(kind="gaussian_chain", records=records, data=data, eigenvalues=np.array([1.0, 2.0]),
                         sigma=0.5, T=10, interval=(0.0, 1.0), source="test")
    for name in ("records", "data", "eigenvalues"):
        value = getattr(run, name)
        assert isinstance(value, np.ndarray) and not value.flags.writeable, name
        with pytest.raises(ValueError):
            value[0] = 7.0
    assert np.shares_memory(run.records, records) and records.flags.writeable and data.flags.writeable
    assert run.sigma == 0.5 and run.T == 10 and run.interval == (0.0, 1.0) and run.source == "test"
    assert run.to_json()["records"] == [0.0, 1.0, 2.0, 3.0] and "basis" not in run.to_json()
