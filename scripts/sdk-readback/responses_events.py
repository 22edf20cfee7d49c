"""Checks that each event of OpenAI Responses fixtures (.sse) is valid against the openai SDK's model
for its type (python responses_events.py fixtures/openai-responses/*.sse): the fixtures are
written from the documented shapes, and this is the check that they are."""
import json,sys,typing
from pydantic import ValidationError
from openai.types.responses import ResponseStreamEvent
union=typing.get_args(ResponseStreamEvent)[0] if typing.get_origin(ResponseStreamEvent) is typing.Annotated else ResponseStreamEvent
models={}
for m in typing.get_args(union):
    lit=m.model_fields['type'].annotation
    for v in typing.get_args(lit): models[v]=m
for path in sys.argv[1:]:
    n=bad=unknown=0
    for line in open(path):
        if not line.startswith('data: '): continue
        data=json.loads(line[6:])
        m=models.get(data['type'])
        if m is None:
            unknown+=1; print(path, data['type'], 'NOT IN SDK'); continue
        try:
            m.model_validate(data); n+=1
        except ValidationError as e:
            bad+=1; print(path, data['type'], 'INVALID', [(x['loc'],x['msg']) for x in e.errors()][:4])
    print(path, n, "valid,", bad, "invalid,", unknown, "not in the SDK")
