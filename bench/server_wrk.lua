-- wrk script for bench/server_bench.py: one DynamoDB operation per request, on keep-alive connections.
-- Usage: wrk -s bench/server_wrk.lua URL -- GetItem|PutItem|Query
local op = "GetItem"
local counter = 0
local headers = {
  ["X-Amz-Target"] = "",
  ["Content-Type"] = "application/x-amz-json-1.0",
  -- Servers without --auth ignore the signature; moto and dynalite read the scope for the region.
  ["Authorization"] = "AWS4-HMAC-SHA256 Credential=AKIDBENCH/20240101/us-east-1/dynamodb/aws4_request, "
    .. "SignedHeaders=host;x-amz-date, Signature=0000",
  ["X-Amz-Date"] = "20240101T000000Z",
}
-- Query reads the whole of partition "q" of table "benchq": 10 items.
local query = '{"TableName":"benchq","KeyConditionExpression":"pk = :p",'
  .. '"ExpressionAttributeValues":{":p":{"S":"q"}}}'

function init(args)
  op = args[1] or op
  headers["X-Amz-Target"] = "DynamoDB_20120810." .. op
end

function request()
  counter = counter + 1
  local body
  if op == "PutItem" then
    body = string.format('{"TableName":"bench","Item":{"pk":{"S":"k%d"},"v":{"S":"value-%d"}}}', counter % 1000, counter)
  elseif op == "Query" then
    body = query
  else
    body = '{"TableName":"bench","Key":{"pk":{"S":"k0"}}}'
  end
  return wrk.format("POST", "/", headers, body)
end
