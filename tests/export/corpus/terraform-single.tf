# One file, the way a module's example often looks: a variable without a default names the table.
variable "name" {
  type = string
}

variable "hash_key_type" {
  default = "N"
}

resource "aws_dynamodb_table" "this" {
  name         = "${var.name}-events"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "device_id"
  range_key    = "ts"

  attribute {
    name = "device_id"
    type = "S"
  }
  attribute {
    name = "ts"
    type = var.hash_key_type
  }
  attribute {
    name = "kind"
    type = "S"
  }

  local_secondary_index {
    name               = "by-kind"
    range_key          = "kind"
    projection_type    = "INCLUDE"
    non_key_attributes = ["payload", "source"]
  }

  server_side_encryption {
    enabled = true
  }
}

resource "aws_kinesis_stream" "events" {
  name        = "events"
  shard_count = 1
}

resource "aws_dynamodb_kinesis_streaming_destination" "this" {
  stream_arn = aws_kinesis_stream.events.arn
  table_name = aws_dynamodb_table.this.name
}

resource "aws_dynamodb_resource_policy" "this" {
  resource_arn = aws_dynamodb_table.this.arn
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { AWS = "arn:aws:iam::111122223333:root" }
      Action    = "dynamodb:GetItem"
      Resource  = "*"
    }]
  })
}
