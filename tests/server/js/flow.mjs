// The everyday DynamoDB flow through the AWS SDK for JavaScript v3 against `tablewright serve`.
// Usage: node flow.mjs http://127.0.0.1:PORT   (exits non-zero with a message on the first mismatch)
import assert from "node:assert/strict";
import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  ResourceNotFoundException,
  TransactionCanceledException,
  paginateQuery,
} from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  BatchWriteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";

const endpoint = process.argv[2];
const client = new DynamoDBClient({
  endpoint,
  region: "us-east-1",
  credentials: { accessKeyId: "dummy", secretAccessKey: "dummy" },
  maxAttempts: 1,
});
const doc = DynamoDBDocumentClient.from(client);

await client.send(
  new CreateTableCommand({
    TableName: "jsflow",
    BillingMode: "PAY_PER_REQUEST",
    AttributeDefinitions: [
      { AttributeName: "pk", AttributeType: "S" },
      { AttributeName: "sk", AttributeType: "N" },
    ],
    KeySchema: [
      { AttributeName: "pk", KeyType: "HASH" },
      { AttributeName: "sk", KeyType: "RANGE" },
    ],
  }),
);

// Low-level client: put and get with wire-typed values, binary included.
await client.send(
  new PutItemCommand({
    TableName: "jsflow",
    Item: { pk: { S: "a" }, sk: { N: "0" }, blob: { B: new Uint8Array([0, 255]) } },
  }),
);
const got = await client.send(new GetItemCommand({ TableName: "jsflow", Key: { pk: { S: "a" }, sk: { N: "0" } } }));
assert.deepEqual(got.Item.blob.B, new Uint8Array([0, 255]));

// Document client: conditional update, then the same condition failing.
await doc.send(new UpdateCommand({
  TableName: "jsflow",
  Key: { pk: "a", sk: 0 },
  UpdateExpression: "SET version = :one",
  ConditionExpression: "attribute_not_exists(version)",
  ExpressionAttributeValues: { ":one": 1 },
}));
await assert.rejects(
  doc.send(new UpdateCommand({
    TableName: "jsflow",
    Key: { pk: "a", sk: 0 },
    UpdateExpression: "SET version = :one",
    ConditionExpression: "attribute_not_exists(version)",
    ExpressionAttributeValues: { ":one": 1 },
  })),
  (error) => error instanceof ConditionalCheckFailedException && error.$metadata.httpStatusCode === 400,
);

// Batch write 20 items, batch get some, paginate a query over them.
await doc.send(new BatchWriteCommand({
  RequestItems: { jsflow: Array.from({ length: 20 }, (_, n) => ({ PutRequest: { Item: { pk: "q", sk: n, even: n % 2 === 0 } } })) },
}));
const batch = await doc.send(new BatchGetCommand({ RequestItems: { jsflow: { Keys: [{ pk: "q", sk: 3 }, { pk: "q", sk: 4 }] } } }));
assert.deepEqual(batch.Responses.jsflow.map((item) => item.sk).sort(), [3, 4]);
const seen = [];
for await (const page of paginateQuery({ client, pageSize: 6 }, {
  TableName: "jsflow",
  KeyConditionExpression: "pk = :pk",
  ExpressionAttributeValues: { ":pk": { S: "q" } },
})) {
  seen.push(...page.Items.map((item) => Number(item.sk.N)));
}
assert.deepEqual(seen, Array.from({ length: 20 }, (_, n) => n));

// A transaction that must cancel as a whole.
await assert.rejects(
  doc.send(new TransactWriteCommand({
    TransactItems: [
      { Put: { TableName: "jsflow", Item: { pk: "t", sk: 1 } } },
      { ConditionCheck: { TableName: "jsflow", Key: { pk: "a", sk: 0 }, ConditionExpression: "version = :two", ExpressionAttributeValues: { ":two": 2 } } },
    ],
  })),
  (error) => error instanceof TransactionCanceledException,
);
assert.equal((await doc.send(new GetCommand({ TableName: "jsflow", Key: { pk: "t", sk: 1 } }))).Item, undefined);

await assert.rejects(
  client.send(new GetItemCommand({ TableName: "missing", Key: { pk: { S: "a" } } })),
  (error) => error instanceof ResourceNotFoundException,
);
console.log("js flow ok");
