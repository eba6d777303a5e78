environment     = "prod"
replica_regions = ["us-east-1"]
