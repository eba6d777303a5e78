resource "aws_dynamodb_table" "things" {
  name = "things"
  billing_mode = "PAY_PER_REQUEST"
  hash_key = "id"
  attribute {
    name = "id"
    type = "S"
  }
  attribute {
    name = "g"
    type = "S"
  }
  global_secondary_index {
    name = "g"
    hash_key = "g"
    projection_type = "ALL"
    on_demand_throughput {
      max_read_request_units = 10
    }
  }
  point_in_time_recovery {
    enabled = true
    recovery_period_in_days = 7
  }
}
