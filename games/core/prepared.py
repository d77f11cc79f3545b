"""Queries compiled to SQL once per process: the few reads that every move and every screen make.

Django builds a query's SQL anew every time it runs it, and for the move path's small reads that
was most of their cost: the current deal with its match took 1.9 ms of CPU, of which SQLite's
own work was 0.1 ms. A prepared query is an ordinary queryset of one argument, compiled once per
database alias with a marker in the argument's place; each call runs that SQL with the argument
and makes the model instances the way Django's own iterable does (the database's converters,
then `from_db`, `select_related` included). The query's text, parameters and instances are
Django's, so the query-count ceilings and the debug log see them as before.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from threading import Lock

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model, QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators
from django.db.transaction import TransactionManagementError

# Stand for the arguments while the query compiles (the first MARKER, the next MARKER + 1...),
# to find their places among the parameters (the query is refused if a constant of its own has
# such a value). Positive and within a 32-bit integer's range: Django compiles a lookup past a
# field's range to no query at all (on PostgreSQL), so a query on a smaller column names
# markers within that column's range (`markers=`).
MARKER = 1_987_654_321


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple
    arguments_at: tuple[int, ...]
    converters: list  # (position in the row, converters, expression), as the compiler makes them
    model: type[Model] | None  # None: a `values_list` query, whose rows are tuples
    init_list: list[str]
    fields: slice
    related_populators: list
    locks: bool


class PreparedQuery:
    """`query(*values)`: the instances `build(*values)` would give, without building its SQL
    again.

    `build` takes the arguments and returns a queryset of model instances (filters, ordering,
    slicing, `select_related` and `select_for_update` as usual) or a `values_list` of tuples,
    in which each argument appears exactly once among the query's parameters. `markers`: the
    values that stand for the arguments while it compiles, when the default's do not fit a
    column the query compares them with.
    """

    def __init__(self, build: Callable[..., QuerySet], markers: tuple[int, ...] | None = None):
        self.build = build
        self.markers = markers
        self._compiled: dict[str, _Compiled] = {}
        self._lock = Lock()

    def __call__(self, *values) -> list:
        alias = DEFAULT_DB_ALIAS  # the site has one database
        compiled = self._compiled.get(alias)
        if compiled is None:
            with self._lock:
                compiled = self._compiled.get(alias) or _compile(self.build, alias, self.markers)
                self._compiled[alias] = compiled
        connection = connections[alias]
        if compiled.locks and connection.get_autocommit():
            raise TransactionManagementError(
                "select_for_update cannot be used outside of a transaction."
            )
        params = list(compiled.params)
        for at, value in zip(compiled.arguments_at, values, strict=True):
            params[at] = value
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            rows = cursor.fetchall()
        instances = []
        for row in rows:
            row = list(row)
            for position, converters, expression in compiled.converters:
                for converter in converters:
                    row[position] = converter(row[position], expression, connection)
            if compiled.model is None:
                instances.append(tuple(row))
                continue
            instance = compiled.model.from_db(alias, compiled.init_list, row[compiled.fields])
            for populator in compiled.related_populators:
                populator.populate(row, instance)
            instances.append(instance)
        return instances

    def first(self, *values) -> Model | None:
        found = self(*values)
        return found[0] if found else None


def _compile(build: Callable[..., QuerySet], alias: str, markers: tuple | None) -> _Compiled:
    count = len(inspect.signature(build).parameters)
    markers = list(markers or (MARKER + index for index in range(count)))
    if len(markers) != count or len(set(markers)) != count:
        raise ValueError(f"a prepared query of {count} arguments needs {count} distinct markers")
    queryset = build(*markers)
    compiler = queryset.query.get_compiler(using=alias)
    sql, params = compiler.as_sql()
    params = tuple(params)
    select = compiler.select
    klass_info = _instances_of(queryset, compiler)
    columns = [column for column, _, _ in select[: compiler.col_count]]
    converters = [
        (position, converters, expression)
        for position, (converters, expression) in compiler.get_converters(columns).items()
    ]
    fields = klass_info["select_fields"] if klass_info else [0]
    return _Compiled(
        sql=sql,
        params=params,
        arguments_at=_places(params, markers),
        converters=converters,
        model=klass_info["model"] if klass_info else None,
        init_list=[column[0].target.attname for column in select[fields[0] : fields[-1] + 1]],
        fields=slice(fields[0], fields[-1] + 1),
        related_populators=get_related_populators(klass_info, select, alias) if klass_info else [],
        locks=queryset.query.select_for_update,
    )


def _places(params: tuple, markers: list[int]) -> tuple[int, ...]:
    """Where each argument's marker sits among the compiled query's parameters."""
    found = [[index for index, param in enumerate(params) if param == marker] for marker in markers]
    if any(len(places) != 1 for places in found):
        raise ValueError(f"each argument must appear once among the parameters: {params!r}")
    return tuple(places[0] for places in found)


def _instances_of(queryset: QuerySet, compiler) -> dict | None:
    """What the rows make: the compiler's description of the model instances (with their
    `select_related` rows), or None for a `values_list`, whose rows are the answer."""
    if queryset._iterable_class is ValuesListIterable:
        return None
    if queryset._iterable_class is not ModelIterable or queryset._known_related_objects:
        raise ValueError("a prepared query returns model instances or a values_list's tuples")
    if compiler.annotation_col_map:
        raise ValueError("a prepared query's instances carry no annotations")
    return compiler.klass_info


# --- Writes -----------------------------------------------------------------------------------
# The move's three writes (its Action row, the deal's summary columns, the match's version) were
# a quarter of a worker's busy CPU through `Model.save`, whose work is mostly deciding again what
# SQL to send. These send the same statements, compiled once per model and set of columns, with
# each value prepared by its field exactly as `save` prepares it (`pre_save`, so `auto_now`
# columns are stamped, then `get_db_prep_save`). Neither sends `pre_save`/`post_save` signals:
# they are for models that have no receivers (a test checks).


@cache
def _update(model: type[Model], fields: tuple[str, ...], vendor: str) -> tuple[str, list]:
    """The UPDATE of `fields` by primary key, and the fields whose values it takes (built once
    per model, fields and database `vendor`, whose quoting it uses)."""
    targets = [model._meta.get_field(name) for name in fields]
    quote = connections[DEFAULT_DB_ALIAS].ops.quote_name
    columns = ", ".join(f"{quote(field.column)} = %s" for field in targets)
    table, pk = quote(model._meta.db_table), quote(model._meta.pk.column)
    return f"UPDATE {table} SET {columns} WHERE {pk} = %s", targets


@cache
def _insert(model: type[Model], vendor: str) -> tuple[str, list]:
    """The INSERT of a new row, returning its primary key, and the fields whose values it takes."""
    connection = connections[DEFAULT_DB_ALIAS]
    pk = model._meta.pk
    targets = [field for field in model._meta.concrete_fields if field is not pk]
    quote = connection.ops.quote_name
    columns = ", ".join(quote(field.column) for field in targets)
    marks = ", ".join(["%s"] * len(targets))
    returning, _ = connection.ops.return_insert_columns([pk])
    return (
        f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES ({marks}) {returning}",
        targets,
    )


def save_fields(instance: Model, fields: tuple[str, ...]) -> None:
    """`instance.save(update_fields=fields)`, without building its UPDATE again."""
    model = type(instance)
    connection = connections[DEFAULT_DB_ALIAS]
    sql, targets = _update(model, fields, connection.vendor)
    params = [
        field.get_db_prep_save(field.pre_save(instance, False), connection) for field in targets
    ]
    params.append(model._meta.pk.get_db_prep_value(instance.pk, connection))
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        if cursor.rowcount != 1:
            raise model.DoesNotExist(f"no {model.__name__} {instance.pk} to update")


def insert(instance: Model) -> Model:
    """`instance.save()` of a new row (as `Model.objects.create` does), without building its
    INSERT again; the primary key comes back from the database (both of the site's databases
    return it from the INSERT itself)."""
    connection = connections[DEFAULT_DB_ALIAS]
    sql, targets = _insert(type(instance), connection.vendor)
    params = [
        field.get_db_prep_save(field.pre_save(instance, True), connection) for field in targets
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        (instance.pk,) = cursor.fetchone()
    instance._state.adding = False
    instance._state.db = DEFAULT_DB_ALIAS
    return instance
