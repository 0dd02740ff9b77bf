"""The action log keyed by (attempt, seq, month) and, on PostgreSQL, partitioned
by month (issue 17; docs/operations.md, "The action log", ``games/partitions.py``).

Production has rows, so this converts a populated table, in the migration's
one transaction: on PostgreSQL a partitioned table is made with a partition
for every month the existing rows belong to, this month's and ``AHEAD``
more, and DEFAULT; the rows are copied with their attempt's start month; the
old table is dropped, the new one takes its name, then its key and foreign key
are built (one index build over the copied rows, not one insert at a time).
Under SQLite the table is rebuilt by Django's schema editor from the new model.
Backwards, both rebuild the table of 0005 from its model and copy the rows
back, in order, so ids follow (attempt, seq).
"""

import datetime as dt

from django.db import migrations, models

from games import partitions

TABLE = partitions.TABLE
ASIDE = f"{TABLE}_aside"
COLUMNS = "attempt_id, seq, sent, action, ms, score, moves"

STATE_OPERATIONS = [
    migrations.RemoveConstraint(model_name="action", name="action_seq"),
    migrations.RemoveField(model_name="action", name="id"),
    migrations.AddField(
        model_name="action",
        name="month",
        field=models.DateField(
            default=None, help_text="the UTC month the attempt started: the partition key"
        ),
        preserve_default=False,
    ),
    migrations.AddField(
        model_name="action",
        name="pk",
        field=models.CompositePrimaryKey(
            "attempt_id",
            "seq",
            "month",
            blank=True,
            editable=False,
            primary_key=True,
            serialize=False,
        ),
    ),
    migrations.AlterField(
        model_name="action",
        name="attempt",
        field=models.ForeignKey(
            db_index=False,
            on_delete=models.deletion.CASCADE,
            related_name="actions",
            to="games.attempt",
        ),
    ),
]


def _partition_postgres(schema_editor):
    run = schema_editor.execute
    # Columns in this order: the fixed-width ones first, 8-byte ones aligned,
    # so no padding (32 bytes), then the two JSON documents.
    checks = ", ".join(
        f"{column} {kind} NOT NULL CONSTRAINT {TABLE}_{column}_check CHECK ({column} >= 0)"
        for column, kind in [
            ("seq", "integer"),
            ("score", "integer"),
            ("moves", "integer"),
            ("ms", "bigint"),
        ]
    )
    run(
        f"CREATE TABLE {TABLE}_new (attempt_id bigint NOT NULL, month date NOT NULL, {checks},"
        " sent jsonb NOT NULL, action jsonb NOT NULL) PARTITION BY RANGE (month)"
    )
    start = "date_trunc('month', a.started_at AT TIME ZONE 'UTC')::date"
    with schema_editor.connection.cursor() as cursor:
        cursor.execute(
            f"SELECT DISTINCT {start} FROM games_attempt a"
            f" WHERE EXISTS (SELECT 1 FROM {TABLE} x WHERE x.attempt_id = a.id)"
        )
        months = {month for (month,) in cursor.fetchall()}
    current = dt.datetime.now(dt.UTC).date().replace(day=1)
    months |= {partitions.add_months(current, n) for n in range(partitions.AHEAD + 1)}
    for month in sorted(months):
        run(
            f"CREATE TABLE {partitions.partition_name(month)} PARTITION OF {TABLE}_new"
            f" FOR VALUES FROM ('{month}') TO ('{partitions.add_months(month, 1)}')"
        )
    run(f"CREATE TABLE {partitions.DEFAULT} PARTITION OF {TABLE}_new DEFAULT")
    run(
        f"INSERT INTO {TABLE}_new (month, {COLUMNS})"
        f" SELECT {start}, x.attempt_id, x.seq, x.sent, x.action, x.ms, x.score, x.moves"
        f" FROM {TABLE} x JOIN games_attempt a ON a.id = x.attempt_id"
        # A game's rows together: a past game's replay reads a few pages, not one a row.
        " ORDER BY x.attempt_id, x.seq"
    )
    run(f"DROP TABLE {TABLE}")
    run(f"ALTER TABLE {TABLE}_new RENAME TO {TABLE}")
    run(f"ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_pkey PRIMARY KEY (attempt_id, seq, month)")
    run(
        f"ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_attempt_id_fk_games_attempt_id"
        " FOREIGN KEY (attempt_id) REFERENCES games_attempt (id) DEFERRABLE INITIALLY DEFERRED"
    )


def _rebuild(schema_editor, model, *, month: bool):
    """Set the table aside, make ``model``'s with Django's schema editor and copy
    the rows over (with their month, or without it)."""
    run = schema_editor.execute
    run(f"ALTER TABLE {TABLE} RENAME TO {ASIDE}")
    if schema_editor.connection.vendor == "postgresql":
        run(f"ALTER TABLE {ASIDE} RENAME CONSTRAINT {TABLE}_pkey TO {ASIDE}_pkey")
    schema_editor.create_model(model)
    if month:
        start = (
            "date(a.started_at, 'start of month')"
            if schema_editor.connection.vendor == "sqlite"
            else "date_trunc('month', a.started_at AT TIME ZONE 'UTC')::date"
        )
        run(
            f"INSERT INTO {TABLE} (month, {COLUMNS}) SELECT {start}, x.attempt_id, x.seq,"
            f" x.sent, x.action, x.ms, x.score, x.moves"
            f" FROM {ASIDE} x JOIN games_attempt a ON a.id = x.attempt_id"
        )
    else:
        run(
            f"INSERT INTO {TABLE} ({COLUMNS}) SELECT {COLUMNS} FROM {ASIDE}"
            " ORDER BY attempt_id, seq"
        )
    run(f"DROP TABLE {ASIDE}" + (" CASCADE" if schema_editor.connection.vendor != "sqlite" else ""))


class PartitionActionLog(migrations.operations.base.Operation):
    reversible = True

    def state_forwards(self, app_label, state):
        for operation in STATE_OPERATIONS:
            operation.state_forwards(app_label, state)

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            _partition_postgres(schema_editor)
        else:
            _rebuild(schema_editor, to_state.apps.get_model(app_label, "action"), month=True)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        _rebuild(schema_editor, to_state.apps.get_model(app_label, "action"), month=False)

    def describe(self):
        return "Key the action log by (attempt, seq, month); partition it by month on PostgreSQL"


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0005_fair_play_review"),
    ]

    operations = [PartitionActionLog()]
