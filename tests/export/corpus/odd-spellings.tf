# Values spelled the ways Terraform converts them.
resource "aws_dynamodb_table" "odd" {
  name             = "odd-spellings"
  billing_mode     = "PROVISIONED"
  read_capacity    = "5"
  write_capacity   = 2.0
  hash_key         = "id"
  stream_enabled   = "false"
  stream_view_type = "NEW_IMAGE"

  deletion_protection_enabled = "false"

  attribute {
    name = "id"
    type = "S"
  }

  point_in_time_recovery {
    enabled = "true"
  }

  ttl {
    attribute_name = "expires"
    enabled        = "false"
  }
}
